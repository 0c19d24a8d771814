"""The API door of the API-key functions: the resolver and its pre-check (auth, bodies), the
request read once (requests), errors to HTTP in one table (errors), a link's view
(link_presentation), the bodies and answers of each route (*_views, link_requests, responses,
files), the link commands and audit entries of a request, and the routers functions share;
above the composition root, which builds what they call. Imports schemas and the domain, no
adapter."""
