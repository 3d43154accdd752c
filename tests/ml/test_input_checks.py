"""What a pasted text must be before the generators see it (``ml.input_checks``)."""
from __future__ import annotations

import pytest

from ml.input_checks import ENGLISH_MIN_SHARE, english_share, refusal_reason


@pytest.mark.parametrize("text", [
    "Maya tiene 12 manzanas y le da 4 a Tom. ¿Cuántas manzanas le quedan?",
    "Anna hat 5 Äpfel und isst 2. Wie viele Äpfel hat sie noch?",
    "Marie a 5 pommes. Elle en mange 2. Combien lui en reste-t-il?",
    "玛雅有12个苹果，她给了汤姆4个。她还剩几个苹果？",
])
def test_other_languages_are_refused_as_english_only(text):
    assert english_share(text) < ENGLISH_MIN_SHARE
    assert refusal_reason(text).startswith("English only")


@pytest.mark.parametrize("text", [
    "A train covers 300 km in 5 hours. What is its speed in km/h?",
    "There was a simple interest of Rs. 4016.25 at the rate of 9% p.a. in 5 years. Find the principal amount.",
    "Priyanka and Oluwaseun share 40 stickers in the ratio 3:5. How many does Oluwaseun get?",
    "In how many ways can you arrange the English, Hindi and Science books on a shelf?",  # no digits, asks
])
def test_english_word_problems_go_ahead(text):
    assert refusal_reason(text) is None


def test_a_text_that_neither_states_a_number_nor_asks_is_not_a_word_problem():
    assert refusal_reason("Describe the market where Maya buys apples.").startswith("Not a word problem")
    assert refusal_reason("900 + 5 × 12 = ?").startswith("Nothing to rewrite")
