"""The judge's features of a pair are read once per process (a refit reads every gold pair again
each time; the loop and the handout re-score the same candidates): the cache gives the same
features as a fresh read, hands out copies, and keys on the encoder's files."""
from __future__ import annotations

import os
import tempfile
import time
from unittest import mock

from django.test import SimpleTestCase

from ml.paraqd.model import encoder_fingerprint
from modelhub.kinds.judge import service
from modelhub.kinds.paraqd import base_encoder_path

PROBLEM = "A shop sells 12 pens at 3 dollars each. How much money does the shop get?"
REWRITE = "Each pen costs 3 dollars, and the shop sells 12 of them. How much money does it get?"


class FeatureCacheTests(SimpleTestCase):
    def test_a_pair_read_again_comes_from_the_cache_as_a_copy(self):
        encoder = base_encoder_path()
        first = service.pair_features(encoder_path=encoder, questions=[PROBLEM], paraphrases=[REWRITE],
                                      fluency_lm="smollm2", english=True)
        cached = len(service._feature_cache)
        again = service.pair_features(encoder_path=encoder, questions=[PROBLEM, PROBLEM],
                                      paraphrases=[REWRITE, REWRITE], fluency_lm="smollm2", english=True)
        self.assertEqual(len(service._feature_cache), cached)  # nothing new was read
        fresh = service.pair_features_uncached(encoder_path=encoder, questions=[PROBLEM], paraphrases=[REWRITE],
                                               fluency_lm="smollm2", english=True)
        for name, value in fresh[0].values.items():
            self.assertAlmostEqual(again[0].values[name], value, places=5, msg=name)
        self.assertEqual(first[0].values, again[1].values)
        again[0].values["fluency"] = 99.0  # a caller's change stays with the caller
        self.assertNotEqual(service.pair_features(encoder_path=encoder, questions=[PROBLEM], paraphrases=[REWRITE],
                                                  fluency_lm="smollm2", english=True)[0].values["fluency"], 99.0)

    def test_the_cache_stays_within_its_bound_and_still_answers_a_larger_call(self):
        encoder = base_encoder_path()
        rewrites = [f"The shop sells 12 pens; each costs 3 dollars. How much money does it get? ({i})" for i in range(5)]
        with mock.patch.object(service, "FEATURE_CACHE_SIZE", 3):
            service._feature_cache.clear()
            features = service.pair_features(encoder_path=encoder, questions=[PROBLEM] * 5, paraphrases=rewrites)
            self.assertEqual(len(service._feature_cache), 3)
        self.assertEqual(len(features), 5)
        fresh = service.pair_features_uncached(encoder_path=encoder, questions=[PROBLEM] * 5, paraphrases=rewrites)
        self.assertEqual([f.values["cosine"] for f in features], [f.values["cosine"] for f in fresh])

    def test_other_settings_are_read_anew(self):
        encoder = base_encoder_path()
        plain = service.pair_features(encoder_path=encoder, questions=[PROBLEM], paraphrases=[REWRITE])
        english = service.pair_features(encoder_path=encoder, questions=[PROBLEM], paraphrases=[REWRITE],
                                        fluency_lm="smollm2", english=True)
        self.assertNotIn("substitute_fit", plain[0].values)
        self.assertIn("substitute_fit", english[0].values)

    def test_the_fingerprint_changes_when_the_encoder_is_retrained_in_place(self):
        folder = self.enterContext(tempfile.TemporaryDirectory())
        weights = os.path.join(folder, "model.safetensors")
        with open(weights, "wb") as handle:
            handle.write(b"one")
        before = encoder_fingerprint(folder)
        time.sleep(0.01)
        with open(weights, "wb") as handle:
            handle.write(b"two")
        os.utime(weights, ns=(time.time_ns(), time.time_ns() + 1_000_000))
        self.assertEqual(before[0], encoder_fingerprint(folder)[0])
        self.assertNotEqual(before, encoder_fingerprint(folder))
