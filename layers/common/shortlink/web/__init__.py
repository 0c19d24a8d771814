"""What any door may believe of a web request, below api, console and redirect: the shape of the
event a front hands over (events), whether it came through the stack's edge (edge), the host it
came in on (hosts), the client's address (addresses); and destination URLs as browsers read them
(urls). Imports the rules' address type and the bases only."""
