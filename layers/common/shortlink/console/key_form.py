"""The console's API key form, read into the API's own request model (`POST /keys`'s), so a
field gets the message that route's 422 would give. Pure code."""

from pydantic import ValidationError

from shortlink.api.errors import describe_validation_errors
from shortlink.api.key_views import CreateKeyRequest
from shortlink.console.forms import Form, FormErrors, moment_value, value


def key_request(form: Form) -> CreateKeyRequest:
    """The key the form asks for; FormErrors naming each bad field."""
    raw = {
        "name": value(form, "name"),
        "scopes": form.get("scopes", []),
        "expires_at": moment_value(form, "expires_at"),
    }
    try:
        return CreateKeyRequest.model_validate({name: given for name, given in raw.items() if given})
    except ValidationError as error:
        errors: dict[str, str] = {}
        for item in error.errors():
            name = str(item["loc"][0])
            errors[name] = "; ".join(filter(None, [errors.get(name), describe_validation_errors([item], 0)]))
        raise FormErrors(errors) from None
