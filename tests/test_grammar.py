"""The action and announcement text grammar: printing then parsing is the identity."""

from hypothesis import given
from hypothesis import strategies as st

from nos_env.actions import Action, format_action, parse_action
from nos_env.announcements import ALL_ANNOUNCEMENTS, parse_announcement
from nos_env.tiles import ALL_TILES

ARMS = [f"L{i}" for i in range(2)] + [f"C{i}" for i in range(4)] + [f"T{i}" for i in range(4)]

tiles = st.sampled_from(ALL_TILES)
doubles = st.sampled_from([t for t in ALL_TILES if t[0] == t[1]])

actions = st.one_of(
    st.sampled_from([Action(k) for k in ("draw", "declare", "no-declare", "decline", "pass")]),
    st.builds(lambda t: Action("set", tile=t), tiles),
    st.builds(lambda a: Action("announce", announcement=a), st.sampled_from(ALL_ANNOUNCEMENTS)),
    st.builds(
        lambda t, arm, i, close: Action("play", tile=t, arm=arm, out=t[i], close=close),
        tiles, st.sampled_from(ARMS), st.integers(0, 1), st.booleans(),
    ),
    st.builds(lambda t, arm: Action("immediate", tile=t, arm=arm, out=t[0]), doubles, st.sampled_from(ARMS)),
)


@given(actions)
def test_print_then_parse_is_identity(action):
    text = format_action(action)
    assert parse_action(text) == action
    assert format_action(parse_action(text)) == text


def test_all_76_announcements_have_distinct_texts_that_parse_back():
    texts = [str(a) for a in ALL_ANNOUNCEMENTS]
    assert len(ALL_ANNOUNCEMENTS) == 76 and len(set(texts)) == 76
    for a, text in zip(ALL_ANNOUNCEMENTS, texts):
        assert parse_announcement(text) == a
        assert a.index == ALL_ANNOUNCEMENTS.index(a)


def test_parsing_is_lenient_about_spacing_and_tile_order():
    assert parse_action("  play   6-2 L1 out 2  close ") == parse_action("play 2-6 L1 out 2 close")
    assert parse_announcement("volapük  ordinary=L1 FIRST( L1 , 3 )") == parse_announcement(
        "volapuk ordinary=L1 FIRST(L1,3)"
    )


def test_vector_notation_examples_parse():
    # The worked examples' notation (tests/data/vectors) is this grammar (the "(automatic)" steps are not decisions).
    for text in [
        "set 2-3", "announce ordinary FIRST(L0,3)", "announce ordinary FHTT(L1) +switch",
        "announce volapuk ordinary=L1 FIRST(L1,3)", "announce matador cross then ordinary double cross",
        "announce triangle double cross", "immediate 3-3 L1 out 3", "play 0-0 C1 out 0 close", "no-declare",
    ]:
        assert format_action(parse_action(text)) == text
