"""`python -m tools.cost` (`make cost`)."""

from tools.cost import main

main()
