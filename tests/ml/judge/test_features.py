"""The numeracy-aware judge's features on hand-made pairs, and the judge's fit, refit, save, load
and explanations. The alignment features use the packaged MiniLM's token embeddings."""
import json

import numpy as np
import pytest

from ml.judge import BASE_FEATURE_NAMES, FEATURE_NAMES, NumeracyJudge, batch_features, pair_features, sentence_transformer_tokens
from ml.judge.features import alignment, entity_difference, foreign_words, number_difference, unit_difference

ORIGINAL = "Sara drove 12 km to buy 3 apples for $4."


def test_a_changed_number_is_seen_by_value():
    assert number_difference(ORIGINAL, "Sara drove 15 km to buy 3 apples for $4.") == (["12"], ["15"])
    # The same values written differently are the same numbers.
    assert number_difference("Tom has 3 pens and 1,200 cards.", "Tom has three pens and 1200 cards.") == ([], [])
    f = pair_features(ORIGINAL, "Sara drove 15 km to buy 3 apples for $4.", cosine=0.98)
    assert f.values["numbers_missing"] == 1 and f.values["numbers_added"] == 1 and f.values["numeracy"] < 0.5


def test_a_dropped_or_changed_unit():
    kept, missing = unit_difference(ORIGINAL, "Sara drove 12 miles to buy 3 apples for $4.")
    assert kept == 0.5 and missing == ["kilometre"]  # km gone; the dollar sign kept
    assert unit_difference(ORIGINAL, "To buy 3 apples for 4 dollars, Sara drove 12 kilometres.") == (1.0, [])


def test_a_replaced_name(spacy_model):
    kept, missing = entity_difference(ORIGINAL, "Priya drove 12 km to buy 3 apples for $4.", spacy_model=spacy_model)
    assert kept == 0.0 and missing == ["Sara"]
    assert entity_difference(ORIGINAL, "For $4, Sara bought 3 apples after a 12 km drive.",
                             spacy_model=spacy_model) == (1.0, [])
    # Single-letter variables are not names.
    assert entity_difference("If x + y = 12 and X is 3, find Y.", "Find Y if x + y = 12 and X is 3.",
                             spacy_model=spacy_model) == (1.0, [])


def test_a_foreign_word(spacy_model):
    share, words, _ = foreign_words(ORIGINAL, "Sara drove 12 km to buy 3 bananas for $4.", spacy_model=spacy_model)
    assert words == ["bananas"] and 0 < share < 0.5
    share, words, wordnet = foreign_words(ORIGINAL, "Sara drove 12 km to purchase 3 apples for $4.",
                                          spacy_model=spacy_model)
    if wordnet:  # "purchase" is a WordNet synonym of "buy"
        assert words == [] and share == 0.0
    else:
        assert words == ["purchase"]


def test_the_identical_pair_passes_every_check(spacy_model):
    f = pair_features(ORIGINAL, ORIGINAL, cosine=1.0, spacy_model=spacy_model)
    assert f.values["numeracy"] == 1.0 and f.values["units_kept"] == 1.0 and f.values["entities_kept"] == 1.0
    assert f.values["foreign"] == 0.0 and f.values["length_ratio"] == 0.0
    assert f.missing_numbers == f.added_numbers == f.missing_units == f.missing_entities == f.foreign_words == []
    assert list(f.values) == list(FEATURE_NAMES) and len(f.vector()) == len(FEATURE_NAMES)


def test_alignment_on_hand_made_embeddings():
    a = np.eye(3)  # three orthogonal tokens
    b = np.eye(3)[:2]  # the candidate has two of them
    p, r, f = alignment(a, b)
    assert (p, r) == (1.0, pytest.approx(2 / 3)) and f == pytest.approx(0.8)
    assert alignment(a, np.zeros((0, 3))) == (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def encoder():
    from ml.paraqd.model import get_scorer, resolve_encoder_path

    return get_scorer(resolve_encoder_path("packaged:all-MiniLM-L6-v2"), "cpu")


PAIRS = [
    ("To buy 3 apples for $4, Sara drove 12 km.", 1),
    ("Sara drove 12 km in order to buy 3 apples for $4.", 1),
    ("Sara drove 15 km to buy 3 apples for $4.", 0),
    ("Sara drove 12 miles to buy 3 apples for $4.", 0),
    ("Priya drove 12 km to buy 3 apples for $4.", 0),
    ("Sara drove 12 km to buy 3 apples for $9.", 0),
]


@pytest.fixture(scope="module")
def features(encoder, spacy_model):
    cosines = encoder.score([ORIGINAL] * len(PAIRS), [p for p, _ in PAIRS])
    return batch_features([ORIGINAL] * len(PAIRS), [p for p, _ in PAIRS], cosines=list(cosines),
                          token_embedder=sentence_transformer_tokens(encoder.model), spacy_model=spacy_model)


def test_token_alignment_from_the_encoder(features):
    reordered, copy_like = features[0].values, features[1].values
    assert 0.8 < reordered["align_f"] <= 1.0 and 0.8 < copy_like["align_f"] <= 1.0
    assert features[4].values["align_r"] < reordered["align_r"]  # a replaced name aligns worse


def test_judge_fit_explain_save_load(features, tmp_path):
    labels = [y for _, y in PAIRS]
    judge = NumeracyJudge(regularisation=10.0).fit(features * 3, labels * 3)
    probs = judge.probability(features)
    assert min(p for p, y in zip(probs, labels) if y) > max(p for p, y in zip(probs, labels) if not y)
    # Same data, same seed: the same weights.
    again = NumeracyJudge(regularisation=10.0).fit(features * 3, labels * 3)
    assert again.weights == judge.weights
    # Explanations name the failed check.
    checks = {c["check"]: c for c in judge.explain(features[2], probability=probs[2])}
    assert not checks["numbers"]["passed"] and "12 missing" in checks["numbers"]["detail"]
    assert "15 added" in checks["numbers"]["detail"]
    assert not {c["check"]: c for c in judge.explain(features[3])}["units"]["passed"]
    names = {c["check"]: c for c in judge.explain(features[4])}["names"]
    assert not names["passed"] and "'Sara'" in names["detail"]
    assert all(c["passed"] for c in judge.explain(features[0]) if c["check"] in ("numbers", "units", "names"))
    # Calibration on top, then JSON persistence (no pickle).
    judge.calibrate(features, labels, method="platt")
    path = judge.save(tmp_path / "judge")
    assert json.loads(path.read_text())["features"] == list(BASE_FEATURE_NAMES)  # no fluency LM: left out
    loaded = NumeracyJudge.load(tmp_path / "judge")
    assert loaded.probability(features) == pytest.approx(judge.probability(features))
    assert loaded.threshold == judge.threshold


def test_refit_on_gold_labels_moves_the_decision(features):
    labels = [y for _, y in PAIRS]
    judge = NumeracyJudge().fit(features * 2, labels * 2)
    # Humans say the renamed person is fine: refitting with that gold, weighted up, raises it.
    gold = [features[4]] * 4
    refitted = NumeracyJudge().fit(features * 2, labels * 2).refit(gold, [1] * 4, weight=3.0,
                                                                   base=(features * 2, labels * 2))
    assert refitted.raw([features[4]])[0] > judge.raw([features[4]])[0]
    assert refitted.trained_on["refit_gold"] == 4
    with pytest.raises(ValueError, match="valid and invalid"):
        NumeracyJudge().fit(features[:2], [1, 1])


class WordListFluency:
    """A stand-in fluency LM: a text's fluency is halved for each word outside a small lexicon."""

    name = "word-list"
    LEXICON = set("sara drove 12 km to buy 3 apples for $4 in order".split())

    def __init__(self):
        self.read = []

    def score(self, texts):
        self.read += list(texts)
        return [0.5 ** sum(w.strip(".,").lower() not in self.LEXICON for w in t.split()) for t in texts]


def test_fluency_is_how_much_less_fluent_the_candidate_reads(spacy_model):
    from ml.judge import fluency_drop

    assert fluency_drop(0.2, 0.1) == pytest.approx(-np.log(2))
    assert fluency_drop(0.1, 0.4) == 0.0  # reading better than the problem earns nothing
    lm = WordListFluency()
    candidates = ["Sara drove 12 km in order to buy 3 apples for $4.",    # every word known
                  "Sara drove 12 km to buy 3 zorbles for $4.",            # one word replaced at random
                  "Sara glorped 12 km to buy 3 zorbles for $4."]          # two
    feats = batch_features([ORIGINAL] * 3, candidates, cosines=[0.9] * 3, spacy_model=spacy_model, fluency_scorer=lm)
    assert [f.values["fluency"] for f in feats] == pytest.approx([0.0, -np.log(2), -2 * np.log(2)])
    assert all(f.fluency_lm == "word-list" for f in feats)
    assert sorted(lm.read) == sorted({ORIGINAL, *candidates})  # each distinct text read once
    # Without a fluency LM the feature is 0 and the pair says no LM scored it.
    (plain,) = batch_features([ORIGINAL], candidates[2:], cosines=[0.9], spacy_model=spacy_model)
    assert plain.values["fluency"] == 0.0 and plain.fluency_lm is None


def test_a_judge_that_weighs_fluency(features, spacy_model, tmp_path):
    lm = WordListFluency()
    texts = [p for p, _ in PAIRS] + ["Sara drove 12 km to buy 3 zorbles for $4.", "Sara glorped 12 km to zap 3 apples for $4."]
    labels = [y for _, y in PAIRS] + [0, 0]
    cosines = [f.values["cosine"] for f in features] + [0.97, 0.96]
    with_lm = batch_features([ORIGINAL] * len(texts), texts, cosines=cosines, spacy_model=spacy_model, fluency_scorer=lm)
    judge = NumeracyJudge(regularisation=10.0, fluency_lm="word-list").fit(with_lm * 3, labels * 3)
    assert judge.feature_names == FEATURE_NAMES and judge.feature_names[-1] == "fluency"
    weights = dict(zip(judge.feature_names, judge.weights))
    assert weights["fluency"] > 0  # the less fluent, the less valid
    probs = judge.raw(with_lm)
    assert max(probs[-2:]) < min(p for p, y in zip(probs, labels) if y)
    checks = {c["check"]: c for c in judge.explain(with_lm[-1])}
    assert not checks["fluency"]["passed"] and "0.25× as probable" in checks["fluency"]["detail"]
    assert {c["check"]: c for c in judge.explain(with_lm[0])}["fluency"]["passed"]
    # Pairs featurised without the judge's LM are refused, not scored with a silent 0.
    with pytest.raises(ValueError, match="word-list"):
        judge.raw(features)
    # It saves and loads with its LM; a judge without one (or a format-1 file) has no fluency feature.
    judge.save(tmp_path / "j")
    data = json.loads((tmp_path / "j" / "judge.json").read_text())
    assert data["fluency_lm"] == "word-list" and data["features"] == list(FEATURE_NAMES)
    assert NumeracyJudge.load(tmp_path / "j").raw(with_lm) == pytest.approx(probs)
    plain = NumeracyJudge(regularisation=10.0).fit(features * 3, [y for _, y in PAIRS] * 3).to_dict()
    old = {**plain, "format": 1}
    del old["fluency_lm"]
    loaded = NumeracyJudge.from_dict(old)
    assert loaded.fluency_lm is None and loaded.feature_names == BASE_FEATURE_NAMES
    assert "fluency" not in {c["check"] for c in loaded.explain(features[0])}
    with pytest.raises(ValueError, match="another format"):
        NumeracyJudge.from_dict({**old, "features": list(FEATURE_NAMES)})


def _synthetic(n=400, seed=0):
    """Feature rows where foreign words come with *valid* pairs (a training operator's artifact:
    its valid outputs reword) and changed numbers with invalid ones."""
    from ml.judge import PairFeatures

    rng = np.random.RandomState(seed)
    rows, labels = [], []
    for i in range(n):
        valid = i % 2 == 0
        values = {name: 0.0 for name in FEATURE_NAMES}
        values.update(cosine=rng.normal(0.95 if valid else 0.9, 0.03), numeracy=1.0 if valid else rng.uniform(0.3, 1.0),
                      foreign=rng.uniform(0.1, 0.4) if valid else rng.uniform(0.0, 0.1), units_kept=1.0,
                      entities_kept=1.0, align_p=rng.uniform(0.8, 1), align_r=rng.uniform(0.8, 1), align_f=0.9,
                      length_ratio=rng.uniform(0, 0.2))
        values["numbers_missing"] = 0.0 if valid else float(rng.randint(0, 2))
        rows.append(PairFeatures(values))
        labels.append(int(valid))
    return rows, labels


def test_a_monotone_judge_keeps_each_check_to_its_sign():
    from ml.judge.features import FEATURE_SIGNS

    rows, labels = _synthetic()
    free = NumeracyJudge(monotone=False).fit(rows, labels)
    mono = NumeracyJudge().fit(rows, labels)
    assert mono.monotone and not free.monotone
    w_free = dict(zip(free.feature_names, free.weights))
    w_mono = dict(zip(mono.feature_names, mono.weights))
    assert w_free["foreign"] > 0.5  # unconstrained, foreign words count for a pair
    assert w_mono["foreign"] == pytest.approx(0.0, abs=1e-6)  # monotone: never for it
    assert all(w * FEATURE_SIGNS[name] >= -1e-9 for name, w in w_mono.items())
    assert w_mono["cosine"] > 0 and w_mono["numeracy"] > 0
    # Where no bound is active it is scikit-learn's logistic regression (same objective), sample weights too.
    for r in rows:  # only the informative checks vary
        r.values.update(foreign=0.0, align_p=0.9, align_r=0.9, length_ratio=0.0)
    weights = [2.0] * 50 + [1.0] * (len(rows) - 50)
    free2 = NumeracyJudge(monotone=False).fit(rows, labels, sample_weight=weights)
    mono2 = NumeracyJudge().fit(rows, labels, sample_weight=weights)
    assert not [name for name, w in zip(free2.feature_names, free2.weights) if w * FEATURE_SIGNS[name] < -1e-6]
    # (scikit-learn's lbfgs stops at tol 1e-4; ours runs to 1e-12)
    assert mono2.weights == pytest.approx(free2.weights, rel=1e-2, abs=1e-3)
    assert mono2.bias == pytest.approx(free2.bias, rel=1e-2, abs=1e-3)
    # The choice is saved with the judge; files from before it (unconstrained) load as unconstrained.
    assert NumeracyJudge.from_dict(mono.to_dict()).monotone
    old = free.to_dict()
    del old["monotone"]
    assert not NumeracyJudge.from_dict(old).monotone


class KeywordLLM:
    """A stand-in LLM check: says Yes (log-odds +2) unless the candidate holds a word it distrusts."""

    name = "llm:keyword:p1"

    def __init__(self, distrusted=("15", "miles", "Priya", "$9")):
        self.distrusted = distrusted
        self.read = []

    def score_pairs(self, problems, candidates):
        self.read += list(zip(problems, candidates))
        return [-2.0 if any(w in c for w in self.distrusted) else 2.0 for c in candidates]


def test_a_judge_that_weighs_an_llm_check(features, spacy_model, tmp_path):
    texts, labels = [p for p, _ in PAIRS], [y for _, y in PAIRS]
    cosines = [f.values["cosine"] for f in features]
    # The LLM knows what the checks miss: a swapped question ("how far" instead of "how much").
    extra = ["Sara drove 12 km to buy 3 apples for $4. How far was the shop?"]
    llm = KeywordLLM(distrusted=("15", "miles", "Priya", "$9", "How far"))
    read = batch_features([ORIGINAL] * (len(texts) + 1), texts + extra, cosines=cosines + [0.95],
                          spacy_model=spacy_model, llm_check=llm)
    assert [f.llm for f in read] == [2.0, 2.0, -2.0, -2.0, -2.0, -2.0, -2.0]
    assert all(f.llm_model == "llm:keyword:p1" for f in read) and len(llm.read) == len(read)
    judge = NumeracyJudge(regularisation=10.0, llm=llm.name).fit(features * 3, labels * 3)
    with pytest.raises(ValueError, match="not weighed"):
        judge.raw(read)
    judge.fit_llm(read * 2, (labels + [0]) * 2)
    stack = judge.llm_stack
    assert stack["pairs"] == 14 and min(stack["weights"]) >= 0 and stack["weights"][1] > 0
    probs = judge.raw(read)
    assert max(p for p, y in zip(probs, labels + [0]) if not y) < min(p for p, y in zip(probs, labels) if y)
    checks = {c["check"]: c for c in judge.explain(read[-1], probability=probs[-1])}
    assert not checks["LLM"]["passed"] and "answers No" in checks["LLM"]["detail"]
    assert {c["check"]: c for c in judge.explain(read[0])}["LLM"]["passed"]
    assert "llm" in judge.contributions(read[-1]) and judge.contributions(read[-1])["llm"] < 0
    # Pairs the LLM did not read (or another LLM read) are refused.
    with pytest.raises(ValueError, match="llm:keyword:p1"):
        judge.raw(features)
    # It saves and loads with its stack; a refit on gold labels weighs the LLM again on them.
    judge.save(tmp_path / "j")
    loaded = NumeracyJudge.load(tmp_path / "j")
    assert loaded.llm == llm.name and loaded.raw(read) == pytest.approx(probs)
    refitted = loaded.refit(read * 2, (labels + [0]) * 2)
    assert refitted.llm_stack is not None and refitted.trained_on["refit_gold"] == 14
    with pytest.raises(ValueError, match="no LLM check"):
        NumeracyJudge().fit(features * 3, labels * 3).fit_llm(read, labels + [0])


@pytest.fixture(scope="module")
def smollm2_check():
    from ml.judge.llm_check import InstructLLMCheck, llm_check_unavailable_reason

    reason = llm_check_unavailable_reason("smollm2")
    if reason:
        pytest.fail(f"the packaged SmolLM2 (make install) is needed: {reason}")
    return InstructLLMCheck("smollm2", "cpu", dtype="float32")


@pytest.mark.slow
def test_the_llm_check_reads_each_problem_once_and_matches_a_full_pass(smollm2_check):
    check = smollm2_check
    head, tail = check.prompt_parts(ORIGINAL)
    assert ORIGINAL in head and head.rstrip().endswith("Rewritten problem:") and "Yes or No" in tail
    candidates = [p for p, _ in PAIRS[:3]]
    scores = check.score_pairs([ORIGINAL] * 3, candidates)
    assert all(np.isfinite(scores)) and check.name == "llm:smollm2:p1"
    # The problem's cached prefix gives what one pass over the whole prompt gives.
    assert scores == pytest.approx([check.score_full(ORIGINAL, c) for c in candidates], abs=1e-3)
    # Scores are cached per pair: asking again reads nothing.
    check.model, model = None, check.model
    try:
        assert check.score_pairs([ORIGINAL], candidates[1:2]) == scores[1:2]
    finally:
        check.model = model
    with pytest.raises(ValueError, match="differ in length"):
        check.score_pairs([ORIGINAL], candidates)


def test_an_llm_that_is_not_there_says_why(tmp_path):
    from ml.judge.llm_check import InstructLLMCheck, llm_check_unavailable_reason

    assert "does not exist" in llm_check_unavailable_reason(str(tmp_path / "qwen.gguf"))
    assert "neither" in llm_check_unavailable_reason("no-such-model")
    assert llm_check_unavailable_reason(None) == "no LLM configured"
    with pytest.raises(FileNotFoundError, match="make llm-judge"):
        InstructLLMCheck(str(tmp_path / "qwen.gguf"))


def test_the_llm_check_is_kept_only_where_it_raises_held_out_auc():
    rows, labels = _synthetic(n=300, seed=1)
    rng = np.random.RandomState(2)
    # A third of the invalid pairs look valid to every check (a swapped question keeps numbers and words).
    for i, (r, y) in enumerate(zip(rows, labels)):
        if not y and i % 3 == 1:
            r.values.update(cosine=rng.normal(0.95, 0.03), numeracy=1.0, numbers_missing=0.0, foreign=0.2)
    groups = [i // 3 for i in range(len(rows))]  # three candidates per problem

    def judged(verdicts):
        from dataclasses import replace

        return [replace(r, llm=float(v), llm_model="llm:t:p1") for r, v in zip(rows, verdicts)]

    base = NumeracyJudge().fit(rows, labels)
    reads = [2.0 if y else (-2.0 if i % 3 == 1 else rng.normal()) for i, y in enumerate(labels)]
    useful = NumeracyJudge(llm="llm:t:p1", weights=base.weights, bias=base.bias, mean=base.mean, scale=base.scale)
    useful.fit_llm(judged(reads), labels, groups=groups)
    stack = useful.llm_stack
    assert stack["helps"] and stack["cv_auc"] > stack["classifier_auc"] + 0.05, stack
    noise = NumeracyJudge(llm="llm:t:p1", weights=base.weights, bias=base.bias, mean=base.mean, scale=base.scale)
    noise.fit_llm(judged(rng.normal(size=len(rows))), labels, groups=groups)
    assert noise.llm_stack["helps"] is False, noise.llm_stack
    dropped = noise.drop_llm()
    assert dropped["model"] == "llm:t:p1" and noise.llm is None and noise.llm_stack is None
    assert noise.raw(rows) == pytest.approx(base.raw(rows))  # the classifier alone decides again
    # Too few pairs to hold any out: weighed, not measured.
    tiny = NumeracyJudge(llm="llm:t:p1", weights=base.weights, bias=base.bias, mean=base.mean, scale=base.scale)
    tiny.fit_llm(judged(reads)[:3], [1, 0, 0])
    assert "helps" not in tiny.llm_stack
