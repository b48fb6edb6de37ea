"""The formulas' numbers as KaTeX reads them."""

from charts.attention import formulas


def test_a_large_exponential_is_written_with_a_times_sign():
    # a tab in place of "\t" once ate the sign: "1.235imes 10^{4}"
    assert formulas._big(12346.0) == r"1.235 \times 10^{4}"
    assert "\t" not in formulas._big(6.0e7) and formulas._big(6.0e7).endswith(r"\times 10^{7}")
    assert formulas._big(42.0) == "42"
