"""The console (/console): HTML pages, forms and sessions on the API's schemas; imports api and the domain."""
