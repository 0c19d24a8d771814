"""Memberships, invitations and people's session generations (pynamodb), as items of the API keys
table under their own key prefixes: `member#<workspace>#<subject>`, `invitation#<token hash>`,
`person#<subject>`. They sit beside the keys they replace for people (a workspace's keys and
members are read and written together, by the same functions, with the same home-region rule);
no API key's hash (64 hex digits) can take one of these keys. A role check is one GetItem; the
listings (a person's workspaces at sign-in, a workspace's members on its page) scan this small
table, as the keys' listing does. Removing a member turns their membership item into a removal
(`item_kind` `removed`) with one conditional update, so a removal and a sign-in's just-in-time
join, conditional writes of the same item, cannot both win; only an invitation's put replaces it."""

from datetime import UTC, datetime

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model

from shortlink.adapters.dynamodb.bound_models import TableMeta, bound_model, error_code, unavailable
from shortlink.errors import StorageUnavailable
from shortlink.people.model import Invitation, Membership, Role, role_named

MEMBERSHIP = "membership"
REMOVED = "removed"  # a membership an owner or admin ended: kept so that no sign-in restores it
INVITATION = "invitation"


class MembershipItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")  # the table's key
    kind = UnicodeAttribute(attr_name="item_kind")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    subject = UnicodeAttribute(attr_name="subject")
    email = UnicodeAttribute(attr_name="email")
    role = UnicodeAttribute(attr_name="role")
    added_at = UTCDateTimeAttribute(attr_name="added_at")
    added_by = UnicodeAttribute(null=True, attr_name="added_by")
    removed_at = UTCDateTimeAttribute(null=True, attr_name="removed_at")  # a removal's: see REMOVED
    last_active_at = UTCDateTimeAttribute(null=True, attr_name="last_active_at")  # to the hour (mark_active)


class InvitationItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    kind = UnicodeAttribute(attr_name="item_kind")
    invitation_id = UnicodeAttribute(attr_name="invitation_id")
    workspace_id = UnicodeAttribute(attr_name="workspace_id")
    email = UnicodeAttribute(attr_name="email")
    role = UnicodeAttribute(attr_name="role")
    invited_by = UnicodeAttribute(attr_name="invited_by")
    inviter_subject = UnicodeAttribute(null=True, attr_name="inviter_subject")
    created_at = UTCDateTimeAttribute(attr_name="created_at")
    expires_at = UTCDateTimeAttribute(attr_name="invitation_expires_at")
    taken = BooleanAttribute(default=False, attr_name="taken")
    # The table's Time to Live: a day after its end, an invitation is deleted.
    expires_at_epoch = NumberAttribute(attr_name="expires_at_epoch")


class PersonItem(Model):
    class Meta(TableMeta):
        pass

    item_key = UnicodeAttribute(hash_key=True, attr_name="key_hash")
    session_generation = NumberAttribute(null=True, attr_name="session_generation")
    signed_out_at = NumberAttribute(null=True, attr_name="signed_out_at")  # Unix seconds of the last Sign out


def _role(text: str) -> Role:
    role = role_named(text)
    if role is None:  # only this adapter writes roles: a stray value is the store's fault
        raise ValueError(f"unknown role {text!r} in the store")
    return role


def _membership(item: MembershipItem) -> Membership:
    return Membership(
        item.workspace_id,
        item.subject,
        item.email,
        _role(item.role),
        item.added_at,
        item.added_by or "",
        item.last_active_at,
    )


def _invitation(item: InvitationItem) -> Invitation:
    return Invitation(
        item.invitation_id,
        item.workspace_id,
        item.email,
        _role(item.role),
        item.invited_by,
        item.created_at,
        item.expires_at,
        item.inviter_subject or "",
    )


def membership_key(workspace_id: str, subject: str) -> str:
    return f"member#{workspace_id}#{subject}"


class DynamoMemberships:
    """Memberships; writes and listings in the home region's table, a role check in this
    region's replica first (the home's for a membership not replicated yet), as keys are found;
    a `fresh` check (before a write) only at home, as a fresh key lookup."""

    def __init__(self, table_name: str, home_region: str | None = None, region: str | None = None) -> None:
        self._model = bound_model(MembershipItem, table_name, home_region)
        self._replica = bound_model(MembershipItem, table_name, region) if region != home_region else self._model

    def role_in(self, workspace_id: str, subject: str) -> Role | None:
        membership = self.membership_in(workspace_id, subject)
        return membership.role if membership else None

    def membership_in(self, workspace_id: str, subject: str, *, fresh: bool = False) -> Membership | None:
        item = self._item(workspace_id, subject, fresh)
        return _membership(item) if item is not None and item.kind == MEMBERSHIP else None

    def was_removed(self, workspace_id: str, subject: str) -> bool:
        item = self._item(workspace_id, subject)
        return item is not None and item.kind == REMOVED

    def _item(self, workspace_id: str, subject: str, fresh: bool = False) -> MembershipItem | None:
        key = membership_key(workspace_id, subject)
        if fresh:
            try:
                return self._get(self._model, key)
            except StorageUnavailable:
                if self._replica is self._model:
                    raise
                return self._get(self._replica, key)  # home out of reach: as DynamoApiKeyStore.find_by_hash
        for model in dict.fromkeys((self._replica, self._model)):
            if (item := self._get(model, key)) is not None:
                return item
        return None

    @staticmethod
    def _get(model: type[MembershipItem], key: str) -> MembershipItem | None:
        try:
            return model.get(key, consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def _scan(self, condition: Condition) -> list[Membership]:
        model = self._model
        try:
            found = [_membership(item) for item in model.scan((model.kind == MEMBERSHIP) & condition)]
        except PynamoDBException as error:
            raise unavailable(error) from error
        return found

    def of_person(self, subject: str) -> list[Membership]:
        return sorted(self._scan(self._model.subject == subject), key=lambda each: each.workspace_id)

    def of_email(self, email: str) -> list[Membership]:
        return self._scan(self._model.email == email)

    def members_of(self, workspace_id: str) -> list[Membership]:
        return sorted(self._scan(self._model.workspace_id == workspace_id), key=lambda each: each.email)

    def add(self, membership: Membership, invited_at: datetime | None = None) -> bool:
        model = self._model
        item = model(
            item_key=membership_key(membership.workspace_id, membership.subject),
            kind=MEMBERSHIP,
            workspace_id=membership.workspace_id,
            subject=membership.subject,
            email=membership.email,
            role=membership.role,
            added_at=membership.added_at,
            added_by=membership.added_by or None,
        )
        condition = model.item_key.does_not_exist()
        if invited_at is not None:  # an invitation replaces a removal made before it
            condition |= (model.kind == REMOVED) & (model.removed_at < invited_at.astimezone(UTC))
        try:
            item.save(condition=condition)
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def set_role(self, workspace_id: str, subject: str, role: Role) -> bool:
        model = self._model
        try:
            model(item_key=membership_key(workspace_id, subject)).update(
                actions=[model.role.set(role)], condition=model.kind == MEMBERSHIP
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def remove(self, workspace_id: str, subject: str, removed_at: datetime) -> bool:
        model = self._model
        try:
            model(item_key=membership_key(workspace_id, subject)).update(
                actions=[model.kind.set(REMOVED), model.removed_at.set(removed_at.astimezone(UTC))],
                condition=model.kind == MEMBERSHIP,
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise unavailable(error) from error
        return True

    def mark_active(self, workspace_id: str, subject: str, hour: datetime) -> None:
        """Record `hour` as the member's last activity unless as late a one is recorded (one
        conditional update an hour at most: a busy member costs no write per request)."""
        model = self._model
        moment = hour.astimezone(UTC)
        condition = (model.kind == MEMBERSHIP) & (
            model.last_active_at.does_not_exist() | (model.last_active_at < moment)
        )
        try:
            model(item_key=membership_key(workspace_id, subject)).update(
                actions=[model.last_active_at.set(moment)], condition=condition
            )
        except PynamoDBException as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise unavailable(error) from error


class DynamoPersonSessions:
    """People's session generations, in the home region's table (read there too: a Sign out
    must end the session everywhere at once)."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(PersonItem, table_name, home_region)

    def _person(self, subject: str) -> PersonItem | None:
        try:
            return self._model.get(f"person#{subject}", consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error

    def session_generation(self, subject: str) -> int:
        found = self._person(subject)
        return int(found.session_generation or 0) if found else 0

    def signed_out_at(self, subject: str) -> int:
        found = self._person(subject)
        return int(found.signed_out_at or 0) if found else 0

    def end_sessions(self, subject: str, now: datetime | None = None) -> None:
        """One update: the generation moved on, and the moment kept (the latest Sign out wins)."""
        model = self._model
        moment = int((now or datetime.now(UTC)).timestamp())
        try:
            model(item_key=f"person#{subject}").update(
                actions=[model.session_generation.add(1), model.signed_out_at.set(moment)]
            )
        except PynamoDBException as error:
            raise unavailable(error) from error


class DynamoInvitations:
    """Invitations, in the home region's table: taking one is a conditional update there, so of
    two takers in two regions one gets it."""

    def __init__(self, table_name: str, home_region: str | None = None) -> None:
        self._model = bound_model(InvitationItem, table_name, home_region)

    def add(self, token_hash: str, invitation: Invitation) -> None:
        model = self._model
        item = model(
            item_key=f"invitation#{token_hash}",
            kind=INVITATION,
            invitation_id=invitation.invitation_id,
            workspace_id=invitation.workspace_id,
            email=invitation.email,
            role=invitation.role,
            invited_by=invitation.invited_by,
            inviter_subject=invitation.inviter_subject or None,
            created_at=invitation.created_at,
            expires_at=invitation.expires_at,
            taken=False,
            expires_at_epoch=int(invitation.expires_at.timestamp()) + 86400,
        )
        try:
            item.save(condition=model.item_key.does_not_exist())
        except PynamoDBException as error:
            raise unavailable(error) from error

    def take(self, token_hash: str, now: datetime) -> Invitation | None:
        model = self._model
        item = model(item_key=f"invitation#{token_hash}")
        try:
            item.update(
                actions=[model.taken.set(True)],
                condition=model.item_key.exists()
                & (model.taken == False)  # noqa: E712  (a pynamodb condition, not a comparison)
                & (model.expires_at > now.astimezone(UTC)),
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return None
            raise unavailable(error) from error
        return _invitation(item)

    def find(self, token_hash: str, now: datetime) -> Invitation | None:
        try:
            item = self._model.get(f"invitation#{token_hash}", consistent_read=True)
        except DoesNotExist:
            return None
        except PynamoDBException as error:
            raise unavailable(error) from error
        return None if item.taken or item.expires_at <= now else _invitation(item)

    def pending_for(self, workspace_id: str) -> list[Invitation]:
        model = self._model
        now = datetime.now(UTC)
        condition = (model.kind == INVITATION) & (model.workspace_id == workspace_id) & (model.taken == False)  # noqa: E712
        try:
            found = [_invitation(item) for item in model.scan(condition) if item.expires_at > now]
        except PynamoDBException as error:
            raise unavailable(error) from error
        return sorted(found, key=lambda each: each.created_at)

    def revoke(self, workspace_id: str, invitation_id: str, now: datetime) -> Invitation | None:
        model = self._model
        condition = (model.kind == INVITATION) & (model.workspace_id == workspace_id)
        try:
            # Found by its public id: its key is the token's hash, and nobody keeps the token.
            item = next(iter(model.scan(condition & (model.invitation_id == invitation_id))), None)
            if item is None:
                return None
            item.update(
                actions=[model.taken.set(True)],
                condition=condition & (model.taken == False) & (model.expires_at > now.astimezone(UTC)),  # noqa: E712
            )
        except PynamoDBException as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return None
            raise unavailable(error) from error
        return _invitation(item)
