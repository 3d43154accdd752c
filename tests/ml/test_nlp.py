from ml.text.nlp import capitalized_elsewhere, load_spacy, named_entities, noun_chunks, parse, sentence_spans, sentences


def test_spacy_is_loaded_once_per_model(spacy_model):
    assert load_spacy(spacy_model) is load_spacy(spacy_model)
    assert parse("John bought 5 apples.", spacy_model) is parse("John bought 5 apples.", spacy_model)


def test_sentences_keep_abbreviations_inside(spacy_model):
    text = "Mary has Rs. 500 and Mr. Lee has $20. Angie bought 3 lbs. of coffee. How much is left?"
    assert sentences(text, spacy_model) == [
        "Mary has Rs. 500 and Mr. Lee has $20.", "Angie bought 3 lbs. of coffee.", "How much is left?"]
    assert all(text[s.start:s.end] == s.text for s in sentence_spans(text, spacy_model))


def test_named_entities_for_f7_are_names_not_numbers(spacy_model):
    text = "Alex travelled 100 km from New York at 20 kmph with Mr. Smith."
    assert [(e.text, e.label) for e in named_entities(text, model=spacy_model)] == [
        ("Alex", "PERSON"), ("New York", "GPE"), ("Mr. Smith", "PERSON")]
    assert named_entities("How many apples did he buy for 5 dollars?", model=spacy_model) == []


def test_single_letter_variables_are_not_entities(spacy_model):
    assert named_entities("A and B can finish a job in 6 days.", model=spacy_model) == []


def test_noun_chunks(spacy_model):
    assert [c.text for c in noun_chunks("A train covers 300 km in 5 hours.", spacy_model)] == [
        "A train", "300 km", "5 hours"]


def test_capitalized_elsewhere_tells_names_from_sentence_starts():
    assert capitalized_elsewhere("Trevor", "Trevor buys roses. Then Trevor sells them.")
    assert not capitalized_elsewhere("Trevor", "Trevor buys roses. He sells them.")
    assert not capitalized_elsewhere("A", "A train left. It is a train.")
