"""The pure readers: every format on hand-written files, format detection, and bad input."""

from __future__ import annotations

import json

import pytest

from corpus.importers import ImportFormatError, PairRecord, detect_format, read_pairs, read_problems, read_text

from .importing import FIXTURES


def _read(name: str, fmt: str = "auto", **kwargs):
    return read_problems(FIXTURES / name, fmt, **kwargs)


# --- formats ------------------------------------------------------------------------------------


def test_aqua():
    parsed = _read("aqua_small.json", "aqua")
    assert parsed.format == "aqua"
    first, second, third = parsed.records
    assert first.text.startswith("A tank holds 1,200 litres and loses 2.5% of its water")
    assert first.source == "aqua" and first.source_id == "1"
    assert first.answer == "A)1170"
    assert first.numbers == ["1,200", "2.5%"]
    assert first.metadata["options"] == ["A)1170", "B)1180", "C)1150", "D)1100", "E)1000"]
    assert first.metadata["rationale"].endswith("Answer A")
    assert second.answer == "C)24" and second.numbers == ["3/4", "18"]
    assert third.answer == "B)22.5 km" and third.numbers == ["15", "1 1/2"]


def test_gsm8k_answer_is_the_number_after_the_marks_without_commas():
    records = _read("gsm8k_small.jsonl", "gsm8k").records
    assert [r.answer for r in records] == ["12", "1000", "-3"]
    assert records[1].text == "A farm has 1,250 hens and sells 250 of them. How many hens are left?"
    assert records[1].numbers == ["1,250", "250"]
    assert records[1].metadata["solution"].endswith("#### 1,000")
    assert [r.source_id for r in records] == ["1", "2", "3"]


def test_svamp_joins_body_and_question_with_one_space():
    records = _read("svamp_small.json", "svamp").records
    assert (
        records[0].text == "Omar had 12 marbles. He gave 5 marbles to his sister How many marbles does Omar have now?"
    )
    assert records[0].source_id == "t-1"
    assert records[0].equation == "( 12.0 - 5.0 )"
    assert [r.answer for r in records] == ["7", "48", "120"]
    assert records[2].numbers == ["0.5", "240"]
    assert records[1].metadata == {"type": "Multiplication"}


def test_mawps_puts_the_numbers_back_in_text_and_equation():
    records = _read("mawps_small.csv", "mawps").records
    assert len(records) == 5
    assert records[0].text == "Sara has 5 apples and buys 7 more . How many apples does she have ?"
    assert records[0].equation == "+ 5 7"
    assert records[0].answer == "12"
    assert records[1].text.startswith("A rope of 7.5 meters is cut into pieces of 0.5 meters")
    assert records[3].text.startswith("The temperature is -2 degrees")
    assert records[3].numbers == ["-2", "10"]
    assert records[4].equation == "* 1200 4"
    assert records[0].metadata["masked_question"].startswith("Sara has number0 apples")
    assert records[0].metadata["numbers"] == ["5.0", "7.0"]
    assert [r.source_id for r in records] == ["2", "3", "4", "5", "6"]


def test_jsonl_reads_optional_fields_and_keeps_unknown_ones_in_metadata():
    records = _read("problems_small.jsonl", "jsonl").records
    assert len(records) == 3  # the blank line is skipped
    first, second, third = records
    assert (first.source, first.source_id, first.split, first.answer, first.equation) == (
        "jsonl",
        "a-1",
        "train",
        "7",
        "3 + 4",
    )
    assert second.source_id == "2" and second.metadata == {"topic": "percent"}
    assert second.numbers == ["25", "20%"]
    assert (third.source, third.split, third.source_id) == ("handmade", "dev", "4")
    assert third.numbers == ["2.5", "6"]
    assert third.metadata == {"difficulty": "easy"}


def test_jsonl_reads_a_json_array_too(tmp_path):
    path = tmp_path / "arr.json"
    path.write_text(json.dumps([{"text": "Ann has 2 cats."}, {"text": "Bo has 3 dogs."}]))
    parsed = read_problems(path)
    assert parsed.format == "jsonl"
    assert [r.text for r in parsed.records] == ["Ann has 2 cats.", "Bo has 3 dogs."]


def test_csv_with_quoted_commas_multiline_cells_and_crlf():
    records = _read("problems_small.csv", "csv").records
    assert [r.source_id for r in records] == ["c-1", "c-2", "c-3"]
    assert records[0].text == "Ann has 3 apples, and buys 4 more. How many?"
    assert records[1].numbers == ["1,200", "30"]
    assert records[1].split == ""
    assert records[2].text == "Mia has 10 sweets.\r\nShe eats 3. How many are left?"
    assert records[2].split == "test"
    assert records[0].source == "csv"


def test_split_argument_overrides_the_file():
    records = _read("problems_small.jsonl", split="test").records
    assert {r.split for r in records} == {"test"}


def test_numbers_inside_texts_are_never_rewritten():
    for name in ("aqua_small.json", "gsm8k_small.jsonl", "svamp_small.json", "problems_small.jsonl"):
        for record in _read(name).records:
            assert record.numbers and all(n in record.text for n in record.numbers)


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("text,answer\nTom has 3 apples.,3\n".encode("utf-8-sig"))
    parsed = read_problems(path)
    assert parsed.format == "csv"
    assert parsed.records[0].text == "Tom has 3 apples."
    assert parsed.records[0].answer == "3"


def test_paraqd_pairs():
    pairs = read_pairs(FIXTURES / "pairs_paraqd.csv")
    assert len(pairs) == 6
    assert pairs[0] == PairRecord(
        question="Tom has 5 apples and eats 2. How many are left?",
        paraphrase="After eating 2 of his 5 apples, how many apples does Tom have?",
        valid=True,
        line=2,
    )
    assert [p.valid for p in pairs] == [True, False, True, None, True, False]
    assert pairs[3].question == "A car travels 60 km in 1.5 hours.\nWhat is its speed?"
    assert [p.line for p in pairs] == [2, 3, 4, 5, 7, 9]


def test_pairs_with_paraphrase_and_label_words():
    pairs = read_pairs(FIXTURES / "pairs_label_words.csv")
    assert [p.valid for p in pairs] == [True, False, None, True, False]


def test_pairs_without_a_label_column(tmp_path):
    path = tmp_path / "nolabel.csv"
    path.write_text("question,paraphrase\nQ has 1 item?,Does Q have 1 item?\n")
    assert read_pairs(path) == [PairRecord("Q has 1 item?", "Does Q have 1 item?", None, 2)]


def test_wide_pairs_positive_and_negative_columns(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(
        "question,positive1,positive2,neg_1,neg_2\n"
        "Tom has 5 apples.,Tom has five apples.,,Tom has apples.,Tom has 7 apples.\n"
        "Ann runs 3 km.,Ann runs 3 kilometres.,3 km are run by Ann.,,Ann runs.\n"
    )
    pairs = read_pairs(path, "paraqd-wide")
    assert [(p.question, p.paraphrase, p.valid, p.line) for p in pairs] == [
        ("Tom has 5 apples.", "Tom has five apples.", True, 2),
        ("Tom has 5 apples.", "Tom has apples.", False, 2),
        ("Tom has 5 apples.", "Tom has 7 apples.", False, 2),
        ("Ann runs 3 km.", "Ann runs 3 kilometres.", True, 3),
        ("Ann runs 3 km.", "3 km are run by Ann.", True, 3),
        ("Ann runs 3 km.", "Ann runs.", False, 3),
    ]


def test_wide_pairs_need_labelled_columns_and_a_paraphrase_per_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("question,augmented\nQ?,P?\n")
    with pytest.raises(ImportFormatError, match="positive1"):
        read_pairs(path, "paraqd-wide")
    path.write_text("question,positive1,neg_1\nQ has 1?,,\n")
    with pytest.raises(ImportFormatError, match="line 2"):
        read_pairs(path, "paraqd-wide")


# --- detection ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("aqua_small.json", "aqua"),
        ("gsm8k_small.jsonl", "gsm8k"),
        ("svamp_small.json", "svamp"),
        ("mawps_small.csv", "mawps"),
        ("problems_small.jsonl", "jsonl"),
        ("problems_small.csv", "csv"),
    ],
)
def test_auto_detection(name, expected):
    assert _read(name).format == expected
    assert detect_format(name, (FIXTURES / name).read_text(encoding="utf-8")) == expected


def test_auto_detection_sends_pair_files_to_import_pairs():
    with pytest.raises(ImportFormatError, match="import_pairs"):
        _read("pairs_paraqd.csv")


# --- bad input ----------------------------------------------------------------------------------


def _error(tmp_path, name: str, content: str | bytes, fmt: str = "auto", **kwargs) -> ImportFormatError:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    with pytest.raises(ImportFormatError) as info:
        if fmt == "paraqd":
            read_pairs(path, **kwargs)
        else:
            read_problems(path, fmt, **kwargs)
    return info.value


GOOD = '{"text": "Tom has 3 apples."}\n'


@pytest.mark.parametrize(
    ("name", "content", "fmt", "message", "line", "field"),
    [
        (
            "p.jsonl",
            GOOD + GOOD + '{"text": "x" "y"}\n',
            "jsonl",
            "p.jsonl, line 3: invalid JSON (Expecting ',' delimiter)",
            3,
            None,
        ),
        (
            "gsm8k.jsonl",
            '{"question": "Q 1?", "answer": "1\\n#### 1"}\n{"question": \n',
            "gsm8k",
            "gsm8k.jsonl, line 2: invalid JSON",
            2,
            None,
        ),
        (
            "s.json",
            '[\n {"Body": "A 1", "Question": "B?"},\n {"Body": "C 2" "Question": "D?"}\n]',
            "svamp",
            "s.json, line 3: invalid JSON",
            3,
            None,
        ),
        ("p.jsonl", GOOD + "[1, 2]\n", "jsonl", "p.jsonl, line 2: expected a JSON object, found an array", 2, None),
        ("p.jsonl", GOOD + '{"text": "   "}\n', "jsonl", "p.jsonl, line 2: field 'text' is empty", 2, "text"),
        ("p.jsonl", GOOD + '{"body": "Tom"}\n', "jsonl", "p.jsonl, line 2: field 'text' is missing", 2, "text"),
        ("p.jsonl", GOOD + '{"text": 5}\n', "jsonl", "p.jsonl, line 2: field 'text' must be a string", 2, "text"),
        (
            "p.jsonl",
            GOOD + '{"text": "T 1", "split": "holdout"}\n',
            "jsonl",
            "p.jsonl, line 2: field 'split' is 'holdout'",
            2,
            "split",
        ),
        (
            "p.jsonl",
            GOOD + '{"text": "T 1", "numbers": "1"}\n',
            "jsonl",
            "p.jsonl, line 2: field 'numbers' must be a list",
            2,
            "numbers",
        ),
        (
            "p.jsonl",
            GOOD + '{"text": "T 1", "metadata": [1]}\n',
            "jsonl",
            "p.jsonl, line 2: field 'metadata' must be an object",
            2,
            "metadata",
        ),
        (
            "p.jsonl",
            GOOD + json.dumps({"text": "T 1", "source_id": "x" * 65}) + "\n",
            "jsonl",
            "p.jsonl, line 2: field 'source_id' is longer than 64 characters",
            2,
            "source_id",
        ),
        ("data.csv", "text,answer\nTom has 3.,3\n ,4\n", "csv", "data.csv, line 3: column 'text' is empty", 3, "text"),
        (
            "data.csv",
            "question,answer\nTom?,3\n",
            "csv",
            "data.csv, line 1: missing columns: expected a 'text' column",
            1,
            None,
        ),
        (
            "data.csv",
            'text,answer\n"Tom has 3.",3,extra\n',
            "csv",
            "data.csv, line 2: 3 fields but the header has 2",
            2,
            None,
        ),
        ("data.csv", 'text\n"Tom has 3.\n', "csv", "data.csv, line 2: malformed CSV", 2, None),
        (
            "m.csv",
            "Question,Numbers,Answer\nA number0 b,1.0,1\n",
            "mawps",
            "m.csv, line 1: missing columns: expected Question, Numbers, Equation, Answer",
            1,
            None,
        ),
        (
            "m.csv",
            "Question,Numbers,Equation,Answer\nA number0 b,1.0,+ number0 number0,2\nA number2 b,1.0 2.0,x,3\n",
            "mawps",
            "m.csv, line 3: column 'Question' refers to number2 but 'Numbers' has 2 values",
            3,
            "Question",
        ),
        (
            "m.csv",
            "Question,Numbers,Equation,Answer\nA number0 b,1.0,+ number0 number1,2\n",
            "mawps",
            "m.csv, line 2: column 'Equation' refers to number1 but 'Numbers' has 1 value",
            2,
            "Equation",
        ),
        (
            "m.csv",
            "Question,Numbers,Equation,Answer\nA number0 b,one,x,2\n",
            "mawps",
            "m.csv, line 2: column 'Numbers': not a number: 'one'",
            2,
            "Numbers",
        ),
        (
            "g.jsonl",
            '{"question": "Q 1?", "answer": "it is 1"}\n',
            "gsm8k",
            "g.jsonl, line 1: field 'answer' has no '#### <answer>'",
            1,
            "answer",
        ),
        (
            "a.json",
            '{"question": "Q 1?", "options": ["A)1", "B)2"], "correct": "E"}\n',
            "aqua",
            "a.json, line 1: field 'correct' is 'E', not one of the options (A, B)",
            1,
            "correct",
        ),
        (
            "s.json",
            '[{"Body": "A 1", "Question": "B?"}, {"Body": "", "Question": "D?"}]',
            "svamp",
            "s.json, line 1: field 'Body' is empty",
            1,
            "Body",
        ),
        (
            "x.jsonl",
            '{"prompt": "Q 1?"}\n',
            "auto",
            "x.jsonl, line 1: cannot tell the format from the keys ['prompt']",
            1,
            None,
        ),
        ("x.csv", "foo,bar\n1,2\n", "auto", "x.csv, line 1: missing columns", 1, None),
        (
            "pairs.csv",
            "question,augmented,final_label\nQ 1?,P 1?,1\nQ 2?,P 2?,2\n",
            "paraqd",
            "pairs.csv, line 3: column 'final_label' is '2'; expected 1 or 0",
            3,
            "final_label",
        ),
        (
            "pairs.csv",
            "question,augmented,final_label\nQ 1?,,1\n",
            "paraqd",
            "pairs.csv, line 2: column 'augmented' is empty",
            2,
            "augmented",
        ),
        (
            "pairs.csv",
            "question,text,final_label\nQ 1?,P 1?,1\n",
            "paraqd",
            "pairs.csv, line 1: missing columns: expected question, augmented (or paraphrase)",
            1,
            None,
        ),
        (
            "dup.csv",
            "\ntext,answer,Text\nT 1,1,T 2\n",
            "csv",
            "dup.csv, line 2: column 'Text' appears twice in the header",
            2,
            None,
        ),
    ],
)
def test_bad_input_names_file_line_and_field(tmp_path, name, content, fmt, message, line, field):
    error = _error(tmp_path, name, content, fmt)
    assert str(error).startswith(message), str(error)
    assert error.line == line
    assert error.field == field
    assert error.filename == name


def test_non_utf8_bytes_name_the_line(tmp_path):
    error = _error(tmp_path, "latin.csv", "text\nTom has 3.\nCaf\xe9 sells 4 cakes.\n".encode("latin-1"))
    assert str(error).startswith("latin.csv, line 3: not valid UTF-8 (byte 0xe9 at column 4)")


@pytest.mark.parametrize("content", [b"", b"  \n\n", "\ufeff".encode("utf-8")])
def test_empty_file(tmp_path, content):
    assert str(_error(tmp_path, "empty.jsonl", content)) == "empty.jsonl: the file is empty"


def test_header_without_rows(tmp_path):
    assert str(_error(tmp_path, "head.csv", "text,answer\n")) == "head.csv: no problems in the file"


def test_file_over_the_size_limit(tmp_path):
    error = _error(tmp_path, "big.jsonl", GOOD * 10, max_bytes=100)
    assert str(error) == f"big.jsonl: the file is {len(GOOD) * 10} bytes, over the upload limit of 100 bytes"


def test_missing_file(tmp_path):
    with pytest.raises(ImportFormatError, match="nowhere.jsonl: no such file"):
        read_problems(tmp_path / "nowhere.jsonl")


def test_nul_characters_are_refused(tmp_path):
    assert str(_error(tmp_path, "nul.csv", "text\nTom\x00 has 3.\n")) == "nul.csv, line 2: contains a NUL character"
    error = _error(tmp_path, "nul.jsonl", GOOD + '{"text": "T\\u0000 1"}\n')
    assert str(error) == "nul.jsonl, line 2: contains a NUL character"


def test_messages_can_use_the_name_the_user_gave(tmp_path):
    path = tmp_path / "upload-x7f3.jsonl"
    path.write_text('{"text": ""}\n')
    with pytest.raises(ImportFormatError, match=r"^my problems\.jsonl, line 1"):
        read_problems(path, name="my problems.jsonl")


def test_unknown_format_or_split_is_a_programming_error(tmp_path):
    with pytest.raises(ValueError, match="unknown format"):
        read_problems(tmp_path / "x.jsonl", "xml")
    with pytest.raises(ValueError, match="unknown split"):
        read_problems(tmp_path / "x.jsonl", split="validation")


def test_read_text_drops_the_bom_only(tmp_path):
    path = tmp_path / "b.txt"
    path.write_bytes(b"\xef\xbb\xbfTom \xe2\x82\xac3")
    assert read_text(path) == "Tom €3"
