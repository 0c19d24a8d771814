"""`python -m tools.developers.cost` (`make cost`)."""

from tools.developers.cost import main

main()
