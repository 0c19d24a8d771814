"""Webhook endpoints, fan-out and the retry schedule (pure), and the sender's address check,
which refuses before it connects (sockets are off here: a connection attempt would fail the test)."""

import ipaddress
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks import Webhook

from shortlink.adapters.http.webhooks import HttpWebhookSender
from shortlink.domains.model import ShortDomains
from shortlink.errors import InvalidUrl
from shortlink.web.outbound_addresses import is_public_address, validate_endpoint_url
from shortlink.web.urls import DestinationPolicy
from shortlink.webhooks.deliveries import (
    MAX_ATTEMPTS,
    LinkOwnership,
    click_deliveries,
    delivery_id,
    disables_endpoint,
    link_deliveries,
    parse_message,
    retry_delay,
    signature_headers,
)
from shortlink.webhooks.endpoints import SECRET_OVERLAP, Endpoint, new_secret, rotated
from shortlink.webhooks.events import EventMessage, click_events

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def endpoint(endpoint_id="ep_1", owner="k1", events=("link.created", "link.clicked"), tags=(), disabled=False):
    return Endpoint(
        owner, endpoint_id, "https://hooks.example.com/x", events, tags, new_secret(), AT, AT if disabled else None
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/",
        "https://192.168.1.1/",
        "https://172.16.0.1/",
        "https://100.64.0.1/",  # shared address space (carrier NAT)
        "https://169.254.169.254/",
        "https://[fd00:ec2::254]/",
        "https://[::ffff:10.0.0.1]/",
        "https://0x0a000001/",  # 10.0.0.1 in another spelling
        "https://[::1]/",
        "https://localhost/",
        "https://printer.local/",
        "http://hooks.example.com/",
    ],
)
def test_endpoint_urls_that_would_make_the_server_reach_inside_are_refused(url):
    with pytest.raises(InvalidUrl):
        validate_endpoint_url(url, DestinationPolicy())


def test_loopback_receivers_only_where_allowed_and_only_on_loopback():
    assert validate_endpoint_url("http://127.0.0.1:8080/h", DestinationPolicy(), allow_loopback=True) == (
        "http://127.0.0.1:8080/h"
    )
    with pytest.raises(InvalidUrl):
        validate_endpoint_url("http://10.0.0.1:8080/h", DestinationPolicy(), allow_loopback=True)
    assert validate_endpoint_url("https://Hooks.Example.com/x", DestinationPolicy()) == "https://hooks.example.com/x"


def test_the_retry_schedule_spans_about_a_day_and_the_endpoint_is_disabled_only_after_the_last_attempt():
    delays = [retry_delay(attempt) for attempt in range(1, MAX_ATTEMPTS + 1)]
    assert delays[-1] is None
    assert all(delays[:-1])
    assert delays[:-1] == sorted(delays[:-1])  # type: ignore[type-var]
    assert not disables_endpoint(MAX_ATTEMPTS - 1, 100)
    assert not disables_endpoint(MAX_ATTEMPTS, MAX_ATTEMPTS - 1)  # it answered something meanwhile
    assert disables_endpoint(MAX_ATTEMPTS, MAX_ATTEMPTS)


def test_link_events_go_to_the_endpoints_that_want_them_with_ids_stable_per_event_and_endpoint():
    event = EventMessage("evt_1", "link.created", AT, "k1", ("promo",), {"code": "abc"})
    endpoints = [
        endpoint("ep_all"),
        endpoint("ep_promo", tags=("promo",)),
        endpoint("ep_other_tag", tags=("sale",)),
        endpoint("ep_clicks_only", events=("link.clicked",)),
        endpoint("ep_disabled", disabled=True),
    ]
    deliveries = link_deliveries(event, endpoints)
    assert [d.endpoint_id for d in deliveries] == ["ep_all", "ep_promo"]
    assert [d.webhook_id for d in link_deliveries(event, endpoints)] == [d.webhook_id for d in deliveries]
    assert deliveries[0].webhook_id == delivery_id("evt_1", "ep_all") != deliveries[1].webhook_id
    assert parse_message(deliveries[0].to_json()) == deliveries[0]
    assert parse_message(event.to_json()) == event


def test_clicks_of_a_batch_make_one_delivery_per_endpoint_with_only_its_owners_links():
    [event] = click_events({"a": 3, "b": 2, "c": 5, "none": 0}, AT)
    links = {"a": LinkOwnership("k1", ("promo",)), "b": LinkOwnership("k1", ()), "c": LinkOwnership("k2", ())}
    endpoints = {"k1": [endpoint("ep_all"), endpoint("ep_promo", tags=("promo",))], "k2": [endpoint("ep_k2", "k2")]}
    sent = click_deliveries(event, links, endpoints, ShortDomains())
    deliveries = {d.endpoint_id: parse_message(d.to_json()) for d in sent}
    bodies = {name: json.loads(d.payload)["data"] for name, d in deliveries.items()}  # type: ignore[union-attr]
    assert bodies == {
        "ep_all": {
            "clicks": 5,
            "links": [{"code": "a", "domain": None, "clicks": 3}, {"code": "b", "domain": None, "clicks": 2}],
        },
        "ep_promo": {"clicks": 3, "links": [{"code": "a", "domain": None, "clicks": 3}]},
        "ep_k2": {"clicks": 5, "links": [{"code": "c", "domain": None, "clicks": 5}]},
    }


def test_clicks_name_each_link_by_its_code_and_domain_never_by_its_key():
    # Given clicks counted under the keys of the same code on two domains
    [event] = click_events({"promo": 2, "go.example/promo": 3}, AT)
    links = {key: LinkOwnership("k1", ()) for key in event.clicks}
    # When they are delivered
    [delivery] = click_deliveries(event, links, {"k1": [endpoint("ep_all")]}, ShortDomains(("sho.rt", "go.example")))
    # Then each entry says which domain's link was clicked
    assert json.loads(delivery.payload)["data"]["links"] == [
        {"code": "promo", "domain": "go.example", "clicks": 3},
        {"code": "promo", "domain": "sho.rt", "clicks": 2},
    ]


def test_a_large_batch_is_split_into_events_that_fit_a_queue_message():
    events = click_events({f"c{i}": 1 for i in range(4500)}, AT)
    assert [len(event.clicks) for event in events] == [2000, 2000, 500]
    assert all(len(event.to_json()) < 256 * 1024 for event in events)


def test_signatures_verify_with_the_standard_webhooks_library():
    secret = new_secret()
    now = datetime.now(UTC)
    headers = signature_headers([secret], "msg_1", now, '{"type":"link.created"}')
    assert Webhook(secret).verify('{"type":"link.created"}', headers) == {"type": "link.created"}
    assert headers["webhook-timestamp"] == str(int(now.timestamp()))


def test_during_a_rotation_a_delivery_verifies_with_the_old_secret_and_the_new_until_the_overlap_ends():
    old = new_secret()
    now = datetime.now(UTC)
    endpoint = rotated(
        Endpoint("acct", "ep_1", "https://hooks.example.com", ("link.created",), (), old, now - timedelta(days=3)), now
    )
    assert endpoint.secret != old
    assert endpoint.previous_secret == old
    assert endpoint.previous_secret_until == now + SECRET_OVERLAP
    body = '{"type":"link.created"}'
    headers = signature_headers(endpoint.signing_secrets(now), "msg_1", now, body)
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (old, endpoint.secret):
        assert Webhook(secret).verify(body, headers) == {"type": "link.created"}
    # Once the overlap is over, only the new secret signs
    later = now + SECRET_OVERLAP
    assert endpoint.signing_secrets(later) == (endpoint.secret,)
    assert " " not in signature_headers(endpoint.signing_secrets(later), "msg_2", later, body)["webhook-signature"]
    # A second rotation within the overlap keeps only the secret it replaces, not the one before
    again = rotated(endpoint, now + timedelta(hours=1))
    assert again.signing_secrets(now + timedelta(hours=1)) == (again.secret, endpoint.secret)


@pytest.mark.parametrize("address", ["169.254.169.254", "10.0.0.7", "127.0.0.1", "::1", "fd00:ec2::254"])
def test_the_address_dns_gives_at_send_time_is_checked_before_connecting(address):
    # The name passed the checks when registered; now it resolves inside (DNS rebinding).
    sender = HttpWebhookSender(resolver=lambda host, port: ["93.184.215.14", address])
    result = sender.send("https://hooks.example.com/x", {}, "{}")
    assert (result.ok, result.status) == (False, None)
    assert "may not reach" in result.reason


def test_loopback_is_reachable_only_when_allowed_and_plain_http_only_then():
    sender = HttpWebhookSender(resolver=lambda host, port: ["127.0.0.1"])
    assert not sender.send("http://127.0.0.1:9/x", {}, "{}").ok
    public = HttpWebhookSender(resolver=lambda host, port: ["93.184.215.14"])
    assert public.send("http://hooks.example.com/x", {}, "{}").reason == "webhooks are sent over https only"


# IPv6 spellings that carry an inside IPv4 address: NAT64, IPv4-compatible, SIIT, 6to4, Teredo
# (server and client, the client's bits inverted).
EMBEDDED_INSIDE = [
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::7f00:1",
    "::127.0.0.1",
    "::a9fe:a9fe",
    "::ffff:0:a9fe:a9fe",
    "::ffff:0:10.0.0.1",
    "2002:a9fe:a9fe::1",
    "2002:0a00:0001::",
    "2001:0:a9fe:a9fe::1",
    "2001:0:808:808:0:0:5601:5601",  # Teredo client 169.254.169.254 (inverted) behind a public server
]


@pytest.mark.parametrize("address", EMBEDDED_INSIDE)
def test_an_ipv6_address_that_embeds_an_inside_ipv4_one_is_refused_at_registration_and_at_send(address):
    with pytest.raises(InvalidUrl, match="not a public address"):
        validate_endpoint_url(f"https://[{address}]/hook", DestinationPolicy())
    sender = HttpWebhookSender(resolver=lambda host, port: [address])
    assert sender.send("https://hooks.example.com/x", {}, "{}").reason == (
        "host resolves to an address webhooks may not reach"
    )


def test_an_ipv6_address_that_embeds_a_public_ipv4_one_is_judged_by_both():
    assert is_public_address(ipaddress.ip_address("64:ff9b::808:808"))  # NAT64 to 8.8.8.8
    assert is_public_address(ipaddress.ip_address("2606:4700::1111"))
    assert not is_public_address(ipaddress.ip_address("::"))


def test_an_endpoint_gets_nothing_after_the_key_that_registered_it_expires():
    from dataclasses import replace
    from datetime import timedelta

    expiring = replace(endpoint(), expires_at=AT + timedelta(hours=1))
    before = EventMessage("evt_1", "link.created", AT, "k1", (), {"code": "a"})
    after = EventMessage("evt_2", "link.created", AT + timedelta(hours=1), "k1", (), {"code": "a"})
    assert len(link_deliveries(before, [expiring])) == 1
    assert link_deliveries(after, [expiring]) == []
    clicks = EventMessage("evt_3", "link.clicked", AT + timedelta(hours=2), clicks={"a": 3})
    owners = {"a": LinkOwnership("k1", ())}
    assert click_deliveries(clicks, owners, {"k1": [expiring]}, ShortDomains()) == []


INSIDE_IPV4 = ("10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")


@given(st.one_of(*(st.ip_addresses(network=network) for network in INSIDE_IPV4)))
def test_every_ipv6_embedding_of_an_inside_ipv4_address_is_refused(inner):
    value = int(inner)
    embeddings = {
        "IPv4-mapped": (0xFFFF << 32) | value,
        "NAT64": (0x0064_FF9B << 96) | value,
        "SIIT": (0xFFFF << 48) | value,
        "IPv4-compatible": value,
        "6to4": (0x2002 << 112) | (value << 80) | 1,
        "Teredo server": (0x2001 << 112) | (value << 64) | 1,
        "Teredo client": (0x2001 << 112) | (0x0808_0808 << 64) | (value ^ 0xFFFFFFFF),  # a public server
    }
    public = [kind for kind, embedding in embeddings.items() if is_public_address(ipaddress.IPv6Address(embedding))]
    assert public == [], (inner, public)


def multicast_spellings(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[str]:
    """Every way a webhook URL's host can name `address` that the address checks accept as an
    address: an IPv4 one dotted, as one hex or decimal number, and inside each IPv6 embedding;
    an IPv6 one compressed and in full."""
    if isinstance(address, ipaddress.IPv6Address):
        return [f"[{address.compressed}]", f"[{address.exploded}]"]
    value = int(address)
    embeddings = [
        (0xFFFF << 32) | value,  # IPv4-mapped
        (0x0064_FF9B << 96) | value,  # NAT64
        (0xFFFF << 48) | value,  # SIIT
        value,  # IPv4-compatible
        (0x2002 << 112) | (value << 80) | 1,  # 6to4
        (0x2001 << 112) | (value << 64) | 1,  # Teredo server
        (0x2001 << 112) | (0x0808_0808 << 64) | (value ^ 0xFFFFFFFF),  # Teredo client behind a public server
    ]
    return [str(address), hex(value), str(value), *(f"[{ipaddress.IPv6Address(each)}]" for each in embeddings)]


@given(st.one_of(st.ip_addresses(network="224.0.0.0/4"), st.ip_addresses(network="ff00::/8")))
def test_a_multicast_address_is_refused_in_every_spelling_at_registration_and_at_send(address):
    for host in multicast_spellings(address):
        with pytest.raises(InvalidUrl, match="not a public address"):
            validate_endpoint_url(f"https://{host}/hook", DestinationPolicy())
        resolved = host.strip("[]")
        if ":" in resolved or "." in resolved:  # what DNS can answer: an address, not a number
            # Called within this iteration only, so the loop variable is the one meant
            sender = HttpWebhookSender(resolver=lambda _host, _port: ["93.184.215.14", resolved])  # noqa: B023
            assert sender.send("https://hooks.example.com/x", {}, "{}").reason == (
                "host resolves to an address webhooks may not reach"
            ), host
