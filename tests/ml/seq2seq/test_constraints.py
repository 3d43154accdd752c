"""Number-copying constrained decoding on a hand-built character vocabulary: every reachable
number is one of the input's, written no more often than the input writes it."""
import torch

import pytest

from ml.seq2seq.constraints import (
    LineBreakLogitsProcessor, NumberCopyLogitsProcessor, available_numbers, line_break_token_ids, missing_numbers,
    numeric_token_ids, source_number_words, source_numbers, trailing_number, word_number_values, written_forms,
)

VOCAB = ["x", " ", "$", *"0123456789", ".", ",", ",,", " .", ""]  # the last: end of sequence
EOS = len(VOCAB) - 1


class CharTokenizer:
    def __len__(self):
        return len(VOCAB)

    def decode(self, ids, skip_special_tokens=False):
        return "".join(VOCAB[i] for i in ids)


def ids(text):
    out, i = [], 0
    while i < len(text):
        out.append(VOCAB.index(text[i]))
        i += 1
    return out


def allowed_after(generated: str, source: str, **options) -> set[str]:
    """The tokens left with a finite score after ``generated``."""
    processor = NumberCopyLogitsProcessor(CharTokenizer(), [source_numbers(source)], offset=0, beams=1, **options)
    input_ids = torch.tensor([ids(generated)]) if generated else torch.zeros((1, 0), dtype=torch.long)
    scores = processor(input_ids, torch.zeros((1, len(VOCAB))))
    return {VOCAB[i] for i in range(len(VOCAB)) if torch.isfinite(scores[0, i])}


SOURCE = "x sold 1,200 x at $4.50 in 3 x."
DIGITS = set("0123456789")


def test_helpers():
    assert source_numbers(SOURCE) == {"1200": 1, "4.50": 1, "3": 1}
    assert trailing_number("x 1,2") == "12" and trailing_number("x 4.") == "4." and trailing_number("x.") == ""
    assert available_numbers("x 3 x 3", source_numbers("3 x 3 x 12")) == {"3", "12"}  # the last 3 is being written


def test_a_number_can_only_start_as_an_input_number():
    allowed = allowed_after("x ", SOURCE)
    assert allowed & DIGITS == {"1", "4", "3"}
    assert {"x", " ", "$", "."} <= allowed


def test_inside_a_number_only_its_continuations():
    assert allowed_after("x 1", SOURCE) == {"2", ","}  # 1 -> 12(00) or 1,200
    assert allowed_after("x 1,2", SOURCE) & DIGITS == {"0"} and "x" not in allowed_after("x 1,2", SOURCE)
    assert allowed_after("x $4", SOURCE) == {"."}  # towards 4.50 ("4,50" is no way of writing it)
    assert "5" in allowed_after("x $4.", SOURCE) and "x" not in allowed_after("x $4.", SOURCE)


def test_a_complete_number_may_end_or_be_followed_by_punctuation():
    after = allowed_after("x x 3", SOURCE)
    assert {"x", " ", ".", " ."} <= after and not after & DIGITS  # 3 is complete; "31" is no input number
    assert ",," in allowed_after("x x 3", SOURCE)  # punctuation, not part of the number
    assert ",," not in allowed_after("x x 1", SOURCE)  # 1 is not an input number: it must go on


def test_each_number_as_often_as_the_input_writes_it():
    assert allowed_after("x 3 x ", SOURCE) & DIGITS == {"1", "4"}  # the one 3 is used up
    assert allowed_after("x 3 x ", "3 x 3") & DIGITS == {"3"}


def test_rows_map_to_their_inputs_and_an_impossible_state_is_left_alone():
    processor = NumberCopyLogitsProcessor(CharTokenizer(), [source_numbers("x 7"), source_numbers("x 8")],
                                          offset=1, beams=2)
    # offset 1: the first position is not generated; rows 0-1 belong to input 0, rows 2-3 to input 1.
    input_ids = torch.tensor([ids("xx "), ids("xx "), ids("xx "), ids("x 5")])
    scores = processor(input_ids, torch.zeros((4, len(VOCAB))))
    finite = [{VOCAB[i] for i in range(len(VOCAB)) if torch.isfinite(scores[r, i])} & DIGITS for r in range(4)]
    assert finite[:3] == [{"7"}, {"7"}, {"8"}]
    assert finite[3] == DIGITS  # "5" came from elsewhere: nothing the input allows, the row is untouched


def test_with_require_all_no_end_while_a_number_is_unwritten():
    required = {"require_all": True, "eos_token_ids": [EOS]}
    assert "" in allowed_after("x 3 x", SOURCE)  # without it, an output may drop numbers
    assert "" not in allowed_after("x 3 x", SOURCE, **required)  # 1,200 and 4.50 are still missing
    assert "" not in allowed_after("x 3 x 1,200 x $4.5", SOURCE, **required)  # 4.50 is not written yet
    assert "" in allowed_after("x 1,200 x $4.50 x 3 x", SOURCE, **required)  # every number is there
    assert "" in allowed_after("x 3 x 3", "3 x 3", **required) and "" not in allowed_after("x 3 x", "3 x 3", **required)
    assert "" in allowed_after("x", "no numbers at all", **required)
    # The rest of the constraint is unchanged.
    assert allowed_after("x 1", SOURCE, **required) == {"2", ","}
    assert missing_numbers("x 3 and 1200", source_numbers(SOURCE)) == {"4.50": 1}


def test_require_all_needs_the_end_token():
    with pytest.raises(ValueError):
        NumberCopyLogitsProcessor(CharTokenizer(), [source_numbers(SOURCE)], offset=0, beams=1, require_all=True)


def test_commas_only_in_thousands_groups():
    assert written_forms("1200") == ("1200", "1,200") and written_forms("18") == ("18",)
    # 18 is never "1,8"; 1,200 may be written with or without its comma, and only as groups of three.
    assert allowed_after("x 1", "x 18 x") == {"8"}  # no "1,8"
    assert allowed_after("x 1,", SOURCE) & DIGITS == {"2"}
    assert "x" not in allowed_after("x 1,20", SOURCE)  # a group of two digits cannot end the number
    assert "x" in allowed_after("x 1,200", SOURCE) and "x" in allowed_after("x 1200", SOURCE)
    # A comma after a complete number is punctuation: the text goes on.
    assert {"x", " "} <= allowed_after("x 3,", SOURCE)


def test_no_digit_right_after_a_bare_point_or_comma():
    # "$.20" would write 0.20, which the input does not have, though it has 20.
    assert not allowed_after("x $.", "costs $20 now") & DIGITS
    assert not allowed_after("x ,", "costs $20 now") & DIGITS
    assert "2" in allowed_after("x $", "costs $20 now")


WORDS = ["x", " ", "3", " one", "One", " two", "some", "one", " half", " ones", " a", " fifth", " for", " fif", "ty",
         "th", "teen", "\n", ""]  # the last: end of sequence


class WordTokenizer:
    def __len__(self):
        return len(WORDS)

    def decode(self, ids, skip_special_tokens=False):
        return "".join(WORDS[i] for i in ids)


def words_after(generated: list[str], source: str, *, constrain_words: bool = True, **options) -> set[str]:
    said = [source_number_words(source)] if constrain_words else None
    processor = NumberCopyLogitsProcessor(WordTokenizer(), [source_numbers(source)], offset=0, beams=1,
                                          number_words=said, **options)
    row = [WORDS.index(t) for t in generated]
    input_ids = torch.tensor([row]) if row else torch.zeros((1, 0), dtype=torch.long)
    scores = processor(input_ids, torch.zeros((1, len(WORDS))))
    return {WORDS[i] for i in range(len(WORDS)) if torch.isfinite(scores[0, i])}


def test_number_words_only_where_the_input_says_them():
    # "9 salty one cookies" adds a 1 that nu counts: a number word must be one the input says.
    assert source_number_words("One third of the twenty-five pens, one red") == {
        "one": 2, "third": 1, "twenty": 1, "five": 1}
    after = words_after(["x", " "], "x 3 x")
    assert not after & {" one", "One", " two", " half", "one"}  # "one" opening a word after a space
    assert {"some", " ones", "3", "x"} <= after  # not number words
    assert "one" in words_after(["x", "some"], "x 3 x")  # "some" + "one" continues a word
    assert "One" not in words_after([], "x 3 x")  # the output's first word
    said = words_after(["x"], "one x 3 x and a half")
    assert {" one", "One", " half"} <= said and " two" not in said
    assert {" one", " two", " half"} <= words_after(["x"], "x 3 x", constrain_words=False)  # not constrained
    # Each as often as the input says it.
    assert " one" not in words_after(["x", " one", " ", "x"], "one x 3 x")
    assert " one" in words_after(["x", " one", " ", "x"], "one x and one x")


def test_require_all_asks_for_the_numbers_the_input_says_in_words():
    source = "One x is 3 x"
    assert word_number_values(source) == {1: 1, 3: 1} and word_number_values("x is 3 x") is None
    required = {"require_all": True, "eos_token_ids": [len(WORDS) - 1], "values": [word_number_values(source)]}
    assert "" not in words_after(["x", " ", "3", " ", "x"], source, **required)  # "one" is not said yet
    assert "" in words_after(["x", " one", " ", "x", " ", "3", " ", "x"], source, **required)
    digits_only = {"require_all": True, "eos_token_ids": [len(WORDS) - 1]}
    assert "" in words_after(["x", " ", "3", " ", "x"], source, **digits_only)


def test_numeric_tokens_are_digits_points_and_commas():
    assert {VOCAB[i] for i in numeric_token_ids(CharTokenizer())} == {*"0123456789", ".", ",", ",,", " ."}
    with pytest.raises(ValueError):
        NumberCopyLogitsProcessor(WordTokenizer(), [source_numbers("x 3")], offset=0, beams=1, number_words=[])


def test_a_list_of_numbers_is_not_read_as_one_number():
    # "{1,2....23}" states 1, 2 and 23 (as nu reads it), never 12: the output may not merge them.
    assert source_numbers("from {1,2....23}") == {"1": 1, "2": 1, "23": 1}
    assert not allowed_after("x 1", "from {1,2....23}") & DIGITS
    assert missing_numbers("x 1,200 x", source_numbers("x 1,200 x")) == {}  # thousands groups still one number


def test_fraction_words_only_where_the_input_says_them():
    # "a fifth" is 1/5 to nu: a denominator word is a number word like "one".
    assert source_number_words("two thirds and a fifth") == {"two": 1, "thirds": 1, "fifth": 1}
    assert " fifth" not in words_after(["x", " a"], "x 3 x")
    assert " fifth" in words_after(["x", " a"], "x 3 x and a fifth")
    assert " fifth" not in words_after(["x", " a", " fifth", " a"], "x 3 x and a fifth")  # once, as the input


def test_a_number_word_written_in_pieces_is_governed_too():
    # "for" + "ty" writes "forty" without a number-word token: the piece that would finish it is banned.
    after = words_after(["x", " for"], "x 3 x")
    assert "ty" not in after and "teen" in after  # "forty" is a number, "forteen" no word
    assert "ty" in words_after(["x", " for"], "x 3 x or forty")
    after = words_after(["x", " fif"], "x 3 x")
    assert not after & {"ty", "th", "teen"}  # fifty, fifth, fifteen
    after = words_after(["x", " fif"], "a fifth of 3 x")
    assert "th" in after and not after & {"ty", "teen"}
    assert " for" in words_after(["x"], "x 3 x")  # "for" is no number word
    assert {"ty", "th"} <= words_after(["x", " for"], "x 3 x", constrain_words=False)


def test_line_breaks_only_where_the_problem_has_them():
    tokenizer = WordTokenizer()
    assert [WORDS[i] for i in line_break_token_ids(tokenizer)] == ["\n"]
    processor = LineBreakLogitsProcessor(tokenizer, [True, False], beams=2)
    scores = processor(torch.zeros((4, 1), dtype=torch.long), torch.zeros((4, len(WORDS))))
    newline = WORDS.index("\n")
    assert torch.isinf(scores[:2, newline]).all() and torch.isfinite(scores[2:, newline]).all()
    assert torch.isfinite(scores[:, WORDS.index("x")]).all()
