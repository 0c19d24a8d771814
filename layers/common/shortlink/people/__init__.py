"""People and workspaces: who signs in (a person of the user pool), the workspaces they belong
to (a workspace is what an account of API keys was: its id is that account's id) and the role
they hold in each, which maps to the scopes API keys carry. Pure code: the stores are ports."""
