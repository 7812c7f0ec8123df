"""Text that fuzz tests put where a number is read (agent strengths, move ranks, settings,
config values), shared by ``test_inputs_fuzzed.py`` and ``play/test_web_fuzzed.py``."""

from hypothesis import strategies as st

# Numbers as text may write them: small ones, ones of thousands of digits (Python's ``int``
# refuses more than 4,300), leading zeros, digits that are not ASCII, and signs.
NUMBER_TEXT = st.one_of(
    st.integers(-1, 17).map(str),
    st.integers(10, 6000).map(lambda n: "1" * n),
    st.integers(1, 5000).map(lambda n: "0" * n + "3"),
    st.sampled_from(["", "²", "٥", "١٢", "٣٠", "01", "007", "-1", "+3", "\u22122", " 3", "3.0"]),
    st.text(alphabet="0123456789²٥١+-\u2212", min_size=1, max_size=8),
)
