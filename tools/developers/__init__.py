"""What developers run: the local stack (`devstack`), the template under `sam local`
(`samlocal`), the benchmarks (`bench`) and their price (`cost`), the load test (`load`), the
OpenAPI document's generator (`openapi`) and two speed-ups of moto (`moto_expressions`,
`moto_transactions`) the tests and the bench share."""
