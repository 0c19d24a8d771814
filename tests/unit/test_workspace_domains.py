"""A workspace's domain name as the product accepts it (read as browsers read hosts), and which
domains a workspace's links may be on."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from shortlink.domains.claims import WorkspaceDomain, new_domain
from shortlink.domains.errors import DomainNotFound, DomainNotVerified
from shortlink.domains.model import ShortDomains
from shortlink.domains.names import MAX_DOMAIN_CHARS, workspace_domain_name
from shortlink.domains.served import ServedWorkspaceDomains
from shortlink.domains.workspace_domains import LinkDomains, verified_domain
from shortlink.errors import InvalidLinkOption, InvalidUrl
from shortlink.web.urls import DestinationPolicy, refuse_loop, validate_destination

STACK = ("sho.rt", "go.example")
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def name(typed: str) -> str:
    return workspace_domain_name(typed, STACK)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("links.example.com", "links.example.com"),
        ("  Links.EXAMPLE.com.  ", "links.example.com"),  # trimmed, lower case, no final dot
        ("bücher.example", "xn--bcher-kva.example"),  # IDNA: the punycode a browser asks DNS for
        ("\uff2c\uff29\uff2e\uff2b\uff33\uff0eexample\uff0ecom", "links.example.com"),  # full-width, as UTS 46 maps it
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ],
)
def test_a_name_is_read_as_browsers_read_hosts(typed, read):
    assert name(typed) == read


@pytest.mark.parametrize(
    "typed",
    [
        "127.0.0.1",
        "127.1",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "2130706433",
        "\uff11\uff12\uff17.\uff10.\uff10.\uff11",  # full-width digits: still an address once mapped
        "[::1]",
        "::1",
        "[::ffff:7f00:1]",
        "10.0.0.1.",
    ],
)
def test_an_ip_address_in_any_spelling_is_refused(typed):
    with pytest.raises(InvalidLinkOption, match="IP address") as refused:
        name(typed)
    assert refused.value.field == "domain"


@pytest.mark.parametrize(
    ("typed", "rule"),
    [
        ("", "give a host name"),
        ("links.example.com:443", "without a port"),
        ("https://links.example.com", "a host name only"),
        ("links.example.com/path", "a host name only"),
        ("user@links.example.com", "a host name only"),
        ("links example.com", "a host name only"),
        ("links.exa%6dple.com", "a host name only"),
        ("a\tb.example", "a host name only"),
        ("localhost", "two labels"),
        ("com", "two labels"),
        ("go.localhost", "a loopback name"),
        ("-links.example.com", "not a valid domain name"),
        ("links_x.example.com", "not a valid domain name"),
        ("ab--c.example.com", "not a valid domain name"),
        (f"{'a' * 64}.example.com", "not a valid domain name"),
        (".".join(["abcdefgh"] * 27) + ".example", f"at most {MAX_DOMAIN_CHARS} characters"),
        ("x" * 5000, "a host name only"),
        ("sho.rt", "this stack's own domain"),
        ("GO.example.", "this stack's own domain"),
        ("evil.go.example", "this stack's own domain"),
    ],
)
def test_what_is_not_a_domain_a_workspace_may_claim_is_refused_naming_the_rule(typed, rule):
    with pytest.raises(InvalidLinkOption, match=r"^domain: ") as refused:
        name(typed)
    assert rule in str(refused.value)


def test_a_name_that_only_ends_like_a_stack_domain_is_not_under_it():
    assert name("notgo.example") == "notgo.example"


class Claims:
    """The claims port in memory."""

    def __init__(self, *domains: WorkspaceDomain) -> None:
        self.held = {domain.name: domain for domain in domains}
        self.reads = 0

    def claim_of(self, name: str) -> WorkspaceDomain | None:
        self.reads += 1
        return self.held.get(name)

    def of_workspace(self, workspace: str) -> list[WorkspaceDomain]:
        self.reads += 1
        return [domain for name, domain in sorted(self.held.items()) if domain.workspace == workspace]

    def mark_verified(self, name: str, workspace: str, at: datetime) -> WorkspaceDomain:
        domain = self.held[name] = WorkspaceDomain(name, workspace, self.held[name].token, NOW, at)
        return domain


class Records:
    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)

    def texts_at(self, name: str) -> list[str]:
        return self.texts


def test_a_workspace_uses_the_stacks_domains_and_its_own_verified_ones_only():
    mine = WorkspaceDomain("links.acme.test", "acme", "t", NOW, NOW)
    pending = WorkspaceDomain("new.acme.test", "acme", "t", NOW)
    theirs = WorkspaceDomain("links.other.test", "other", "t", NOW, NOW)
    claims = Claims(mine, pending, theirs)
    domains = LinkDomains(ShortDomains(STACK), "acme", claims)  # type: ignore[arg-type]
    # The stack's domains need no read
    assert (domains.domain_named(None), domains.domain_named("go.example")) == ("", "go.example")
    assert claims.reads == 0
    assert domains.domain_named("Links.Acme.test.") == "links.acme.test"
    claims.held["xn--bcher-kva.example"] = WorkspaceDomain("xn--bcher-kva.example", "acme", "t", NOW, NOW)
    assert domains.domain_named("bücher.example") == "xn--bcher-kva.example"
    for refused in ("new.acme.test", "links.other.test", "nowhere.test"):
        with pytest.raises(InvalidLinkOption, match="or a verified domain of this workspace"):
            domains.domain_named(refused)
    # A stack without Domains serves every host as its own: no workspace domain there
    with pytest.raises(InvalidLinkOption):
        LinkDomains(ShortDomains(), "acme", claims).domain_named("links.acme.test")  # type: ignore[arg-type]


def test_the_domains_offered_are_the_stacks_then_the_workspaces_verified_ones():
    claims = Claims(
        WorkspaceDomain("z.acme.test", "acme", "t", NOW, NOW),
        WorkspaceDomain("a.acme.test", "acme", "t", NOW, NOW),
        WorkspaceDomain("new.acme.test", "acme", "t", NOW),  # not verified
        WorkspaceDomain("links.other.test", "other", "t", NOW, NOW),
    )
    assert LinkDomains(ShortDomains(STACK), "acme", claims).names() == (*STACK, "a.acme.test", "z.acme.test")  # type: ignore[arg-type]
    assert LinkDomains(ShortDomains(STACK), "nobody", claims).names() == STACK  # type: ignore[arg-type]
    # Without Domains the stack serves every host as its default: nothing to choose, nothing read
    claims.reads = 0
    assert LinkDomains(ShortDomains(), "acme", claims).names() == ()  # type: ignore[arg-type]
    assert claims.reads == 0


def test_verification_needs_the_claims_own_token_in_the_record():
    claims = Claims(new_domain("links.acme.test", "acme", NOW))
    token = claims.held["links.acme.test"].record_value
    with pytest.raises(DomainNotVerified, match=r"_shortlink\.links\.acme\.test .* \(2 TXT values found\)"):
        verified_domain(claims, Records("v=spf1 -all", token + "x"), "acme", "links.acme.test", NOW)  # type: ignore[arg-type]
    with pytest.raises(DomainNotFound):
        verified_domain(claims, Records(token), "other", "links.acme.test", NOW)  # type: ignore[arg-type]
    assert verified_domain(claims, Records(token), "acme", "links.acme.test", NOW).verified  # type: ignore[arg-type]


def test_a_destination_on_a_workspaces_verified_domain_loops_in_every_spelling_browsers_read_alike():
    # Given a verified domain of one workspace, another's, and a claim not verified yet
    claims = Claims(
        WorkspaceDomain("links.acme.test", "acme", "t", NOW, NOW),
        WorkspaceDomain("xn--bcher-kva.example", "other", "t", NOW, NOW),
        WorkspaceDomain("new.acme.test", "acme", "t", NOW),
    )
    served = ServedWorkspaceDomains(ShortDomains(STACK), lambda: claims)  # type: ignore[arg-type,return-value]
    policy = replace(DestinationPolicy.of(STACK, ()), workspace_domain=served)
    # Then a link to either verified domain is a loop, however it is spelled, whoever holds it
    for url in (
        "https://links.acme.test/x",
        "http://LINKS.Acme.test./",
        "https://links.acme.test:443/x",
        "https://links.acme.test:8443/x",
        "https://links%2Eacme.test/",
        "https://\uff4cinks.acme.test/",
        "https://links\u3002acme\u3002test/",
    ):
        with pytest.raises(InvalidUrl, match=r"redirect loop\): links\.acme\.test is a workspace's short domain"):
            validate_destination(url, policy)
    with pytest.raises(InvalidUrl, match=r"xn--bcher-kva\.example is a workspace's short domain"):
        validate_destination("https://BÜCHER.example/", policy)
    # One claim read per host, however many links name it
    assert claims.reads == 2
    # Not a claim that is not verified (claiming a name must not refuse every link to it), nor a
    # name under a domain, nor another site; an address is never read about
    for url in ("https://new.acme.test/", "https://www.links.acme.test/", "https://example.com/"):
        assert validate_destination(url, policy) == url
    reads = claims.reads
    for address in ("http://203.0.113.7/", "http://[2001:db8::1]/"):
        assert validate_destination(address, policy) == address
    assert claims.reads == reads == 5
    # A stored destination is checked the same way (a move), and a stack without Domains serves
    # no workspace's domain: nothing is read
    with pytest.raises(InvalidUrl, match=r"links\.acme\.test is a workspace's short domain"):
        refuse_loop("https://links.acme.test/x", policy)
    refuse_loop("https://example.com/", policy)
    none_served = ServedWorkspaceDomains(ShortDomains(), lambda: claims)  # type: ignore[arg-type,return-value]
    assert validate_destination("https://links.acme.test/", replace(policy, workspace_domain=none_served))
    assert claims.reads == 5
