"""The public shapes of a link (pydantic): the field types a request, a console form and an
import file share, and the one JSON view answers and exports carry; imports links, access and
the bases."""
