"""Single sign-on through the user pool's managed login: the sign-in's state, the ID token's
checks and the callback's steps. Pure code: the HTTP calls come in through ports."""
