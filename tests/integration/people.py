"""A user pool in the test's moto account, made from people.yaml's resources as `make dev` makes
it, with people signed in to it: their access tokens are moto's, signed by moto's key. The
functions read the pool's public keys from moto's own JWKS file (in-process moto serves no
HTTP; the e2e tests fetch the keys over HTTP from the local stack's moto)."""

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import boto3
import pyotp
import pytest
from moto.cognitoidp.responses import CognitoIdpJsonWebKeyResponse

from shortlink import wiring as services
from shortlink.adapters.dynamodb.memberships import DynamoMemberships
from shortlink.people.members import join_on_first_sign_in
from shortlink.people.model import Person, Role
from shortlink.wiring import people as people_wiring
from tools.developers.devstack.people import LocalPool, create_user_pool, dev_password
from tools.developers.devstack.template import LocalTemplate


class MotoPoolKeys:
    """The pool's public keys as moto serves them at /<pool>/.well-known/jwks.json."""

    def keys(self, refresh: bool = False) -> Mapping[str, Any]:
        document: Mapping[str, Any] = json.loads(CognitoIdpJsonWebKeyResponse.json_web_key)
        return document


@dataclass
class Pool:
    local: LocalPool
    cognito: Any

    def person(self, email: str) -> tuple[Person, str]:
        """A person of the pool and their password."""
        password = dev_password()
        self.cognito.admin_create_user(
            UserPoolId=self.local.user_pool_id,
            Username=email,
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            MessageAction="SUPPRESS",
        )
        self.cognito.admin_set_user_password(
            UserPoolId=self.local.user_pool_id, Username=email, Password=password, Permanent=True
        )
        user = self.cognito.admin_get_user(UserPoolId=self.local.user_pool_id, Username=email)
        subject = next(each["Value"] for each in user["UserAttributes"] if each["Name"] == "sub")
        return Person(subject, email), password

    def member(self, email: str, workspace_id: str, role: Role) -> tuple[Person, str]:
        person, password = self.person(email)
        join_on_first_sign_in(DynamoMemberships(services.resources().api_keys_table.value), person, workspace_id, role)
        return person, password

    def access_token(self, email: str, password: str) -> str:
        answer = self.cognito.initiate_auth(
            ClientId=self.local.client_id,
            AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": password},
        )
        return str(answer["AuthenticationResult"]["AccessToken"])


def user_pool_in(template: LocalTemplate, monkeypatch: pytest.MonkeyPatch) -> Pool:
    """The template's user pool in the moto account in effect, the functions told of it."""
    cognito = boto3.client("cognito-idp")
    local = create_user_pool(template, cognito, "http://moto.invalid")
    for name, value in local.environment().items():
        monkeypatch.setenv(name, value)
    services.reset()
    # Where person_access calls it; MotoPoolKeys keeps nothing for reset() to forget.
    monkeypatch.setattr(people_wiring, "pool_keys", MotoPoolKeys)
    return Pool(local, cognito)


class Authenticator(pyotp.TOTP):
    """An authenticator app: moto gives every person one 60-bit secret (Cognito's are 256 bits),
    shorter than pyotp takes by default."""

    min_secret_length_bits = 0
    MARGIN_SECONDS = 5

    def fresh(self) -> str:
        """The current code, with time to use it: moto takes a code only in its own 30-second
        step, so near a step's end this waits for the next one, as a person would."""
        left = self.interval - time.time() % self.interval
        if left < self.MARGIN_SECONDS:
            time.sleep(left + 0.1)
        return self.now()
