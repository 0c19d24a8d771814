"""`make sam-local`: the template under SAM CLI's own `sam local start-api`, natively and offline."""
