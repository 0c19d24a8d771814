"""Every number read from a person goes through one parser (shortlink.numbers): ASCII digits only,
a sign only where allowed, range-checked, an error naming the field (issue 28 item 2).

Each place that reads one is tried with the same hostile spellings: Unicode digits (Arabic-Indic,
superscript, circled, full-width), signs, inner and surrounding whitespace, exponents, fractions,
huge and non-finite values."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shortlink.console.forms import FormErrors, link_changes, link_options
from shortlink.numbers import NotAWholeNumber, whole_number
from shortlink.rules.parsing import parse_rules
from shortlink.transfer.formats import read
from tools.operators import redrive_clicks

# Spellings no field takes, whatever its range.
NOT_NUMBERS = [
    "٣",  # Arabic-Indic three: int() reads it as 3
    "۳",  # Extended Arabic-Indic
    "३",  # Devanagari
    "\uff13",  # full-width
    "²",  # superscript: isdigit() is true, int() fails
    "③",
    "①",
    "1٣",
    "3\u00a0",  # no-break space is not ASCII whitespace
    "1 000",
    "1_000",
    "1e3",
    "1E3",
    "3.0",
    ".5",
    "0x10",
    "NaN",
    "nan",
    "inf",
    "Infinity",
    "-Infinity",
    "",
    " ",
    "+",
    "-",
    "--1",
    "9" * 19,
    "9" * 5000,  # int() would refuse it with its own limit
]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_only_ascii_digits_are_a_number(text):
    with pytest.raises(NotAWholeNumber) as refused:
        whole_number(text, "max_clicks", signed=True)
    assert str(refused.value).startswith("max_clicks: must be a whole number")


def test_a_sign_only_where_allowed_and_surrounding_spaces_are_ignored():
    assert whole_number(" 42\t", "n") == 42
    assert whole_number("-7", "n", signed=True) == -7
    assert whole_number("+7", "n", signed=True) == 7
    for text in ("-7", "+7"):
        with pytest.raises(NotAWholeNumber):
            whole_number(text, "n")


def test_the_range_is_checked_and_named():
    assert whole_number("1", "weight", minimum=1, maximum=10) == 1
    with pytest.raises(NotAWholeNumber, match=r"^weight: must be a whole number from 1 to 10$"):
        whole_number("11", "weight", minimum=1, maximum=10)
    with pytest.raises(NotAWholeNumber, match="of at least 1"):
        whole_number("0", "n", minimum=1)


@given(st.text(max_size=12))
def test_any_text_is_a_number_exactly_when_it_is_ascii_digits(text):
    ascii_digits = text.strip(" \t\r\n")
    expected = ascii_digits.isascii() and ascii_digits.isdigit() and len(ascii_digits) <= 18
    try:
        number = whole_number(text, "n")
    except NotAWholeNumber:
        assert not expected
    else:
        assert expected
        assert number == int(ascii_digits)


def form(**fields: str) -> dict[str, list[str]]:
    return {name: [text] for name, text in fields.items()}


@pytest.mark.parametrize("name", ["redirect_type", "max_clicks"])
@pytest.mark.parametrize("text", ["٣", "²", "③", "1e3", "NaN", "-5", "9" * 5000])
def test_the_consoles_create_and_edit_forms_name_a_bad_number(name, text):
    for read_form in (link_options, link_changes):
        with pytest.raises(FormErrors) as refused:
            read_form(form(url="https://example.com/", **{name: text}))
        assert name in refused.value.errors, (read_form, refused.value.errors)


@pytest.mark.parametrize("text", ["٣", "²", "③", "1e1", "7.0", "-5"])
def test_the_consoles_ab_weights_are_ascii_numbers(text):
    fields = form(
        url="https://example.com/",
        variant_0_url="https://a.example",
        variant_0_weight=text,
        variant_1_url="https://b.example",
        variant_1_weight="30",
    )
    with pytest.raises(FormErrors) as refused:
        link_options(fields)
    assert refused.value.errors["routes"].startswith("variant 1's weight: must be a whole number")


def test_a_form_row_index_in_other_digits_is_no_row():
    fields = form(url="https://example.com/", variant_٣_url="https://a.example", variant_٣_weight="1")
    assert link_options(fields)[1].rules is None


@pytest.mark.parametrize("column", ["redirect_type", "max_clicks"])
@pytest.mark.parametrize("text", ["٣", "²", "③", "1e3", "NaN", "+5", "9" * 5000])
def test_a_csv_imports_number_columns_in_ascii_digits_only(column, text):
    (record,) = read(f"url,{column}\nhttps://example.com/,{text}\n", "csv")
    assert record.problems == (f"{column}: must be a whole number in the digits 0-9",)
    assert column not in record.fields


def test_a_csv_number_in_ascii_digits_is_read():
    (record,) = read("url,redirect_type,max_clicks\nhttps://example.com/, 307 ,5\n", "csv")
    assert (record.fields["redirect_type"], record.fields["max_clicks"], record.problems) == (307, 5, ())


@pytest.mark.parametrize("clock", ["1٣:00", "٠٩:00", "09:٣٠", "\uff109:00"])
def test_a_routes_time_of_day_is_ascii_digits(clock):
    rules = {"routes": [{"time": {"from": clock, "to": "10:00"}, "url": "https://a.example"}]}
    with pytest.raises(Exception, match="must be HH:MM"):
        parse_rules(rules, lambda url: url)


@pytest.mark.parametrize("text", ["٣", "1e3", "-1", "0"])
def test_the_redrive_commands_count_is_an_ascii_number(text, capsys):
    with pytest.raises(SystemExit) as stopped:
        redrive_clicks.main(["--max-messages", text])
    assert stopped.value.code == 2
    assert "argument --max-messages: value: must be a whole number" in capsys.readouterr().err
