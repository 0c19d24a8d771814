"""Social preview cards: Open Graph and Twitter tags, every value escaped (issue 16 item 5)."""

from shortlink.links.previews import LinkPreview, preview_page


def test_the_card_carries_open_graph_and_twitter_tags_with_every_value_escaped():
    preview = LinkPreview(title='A "quoted" <b>title</b>', description="Tom & Jerry", image="https://cdn.example/i.png")
    page = preview_page(preview, "https://example.com/?a=1&b=2", "noindex")
    assert '<meta property="og:title" content="A &quot;quoted&quot; &lt;b&gt;title&lt;/b&gt;">' in page
    assert '<meta name="twitter:description" content="Tom &amp; Jerry">' in page
    assert '<meta property="og:image" content="https://cdn.example/i.png">' in page
    assert '<meta name="twitter:card" content="summary_large_image">' in page
    assert '<meta name="robots" content="noindex">' in page
    assert '<meta http-equiv="refresh" content="0; url=https://example.com/?a=1&amp;b=2">' in page
    assert "<b>" not in page


def test_a_card_without_image_is_a_summary_and_only_set_fields_are_tagged():
    page = preview_page(LinkPreview(description="Only text"), "https://example.com/", None)
    assert '<meta name="twitter:card" content="summary">' in page
    assert "og:title" not in page
    assert "og:image" not in page
    assert 'name="robots"' not in page
    assert LinkPreview(description="Only text").document() == {"description": "Only text"}
