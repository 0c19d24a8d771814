"""The redirect's routes, as template.yaml names them (RedirectFunction's events): a follow of a
code by GET, HEAD or POST, the unlock form's POST on a path of its own (UNLOCK: behind an edge
whose redirects fail over between origins, their behaviour takes no POST; edge.yaml gives this
path its own), and a short domain's own addresses (shortlink.redirect.domain_addresses).
A front that routes (API Gateway) names the route it matched; a load balancer's event has its
path matched against these (shortlink.web.events)."""

ROOT = "GET /"
WELL_KNOWN_FILE = "GET /.well-known/{file}"
ROBOTS_TXT = "GET /robots.txt"
UNLOCK = "POST /unlock/{code}"
FOLLOWS = ("GET /{code}", "HEAD /{code}", "POST /{code}", UNLOCK)
ROUTES = (*FOLLOWS, ROOT, WELL_KNOWN_FILE, ROBOTS_TXT)
# A load balancer's target health check (its HealthCheckPath): a route only where the front does
# not route (API Gateway's has none; there the path is a follow of a reserved slug).
HEALTH_CHECK = "GET /health"
LOAD_BALANCER_ROUTES = (*ROUTES, HEALTH_CHECK)
