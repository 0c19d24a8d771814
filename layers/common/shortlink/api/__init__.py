"""The HTTP API of the API-key functions: auth, errors, schemas; imports the domain packages, no adapter."""
