"""Tree-based paraphrase ranking (paper 004, section 3 and appendix B, Algorithms 1 and 3).

Each candidate gets a path of metric values measured against the input: level 1 the Jaccard
distance J of the content-word sets, level 2 the ParaQD score E (``scores["paraqd"]``, the
cosine in [-1, 1], standing in for the paper's BART entailment), level 3 the string
similarity S (``rapidfuzz`` ``fuzz.ratio`` / 100, the normalised Indel similarity of the two
strings). Candidates with the same path share a leaf (Algorithm 1). Nodes with J > 0.75 are
pruned (hallucination); ``min_paraqd`` optionally prunes E below it too, as the paper's T5DST
variant (section 5.2) prunes entailment below 0.58. The decision functions per level are
[None, max, min].

Ranking (section 4.1, Algorithm 3):

1. the first pick is a *syntactic* paraphrase: from the J = 0 subtree (same content words),
   the candidate with the lowest S (ties: higher E, then input order); skipped when no
   candidate has J = 0;
2. then rounds of a breadth-first pass over the level-1 nodes from high to low J; each node's
   subtree is walked depth-first, taking the child with the max E and then the leaf with the
   min S, and one candidate of that leaf is picked (the text repeated most often in the leaf,
   else the earliest; the paper picks at random among distinct texts). A picked candidate
   leaves the pool and emptied nodes leave the tree, so rounds continue until k picks or an
   empty pool;
3. the picks are returned sorted by J, v1 (closest to the input) to vk.

The metric values are bucketed by rounding to ``decimals`` places (2 by default, as the
paper's figure shows J = 0.66, E = 0.77, S = 0.77), so near-equal candidates share a node;
pruning and the J = 0 test use these node values, sorting uses the exact J.

Content words by default: lower-cased alphanumeric words (numbers kept, as "2.5") minus a
small English stopword list, no lemmatisation, so no spaCy is needed; pass
``content_lemmas=spacy_content_lemmas()`` for spaCy lemmas.

>>> cands = [SelectionCandidate(t, {"paraqd": e}) for t, e in [
...     ("Tom bought 3 apples.", 0.99), ("3 apples were bought by Tom.", 0.9),
...     ("Tom purchased 3 apples.", 0.95), ("Tom got 3 pears.", 0.4)]]
>>> tree_rank("Tom bought 3 apples.", cands, k=3)   # J: 0, 0.4, 0.67 ("pears" is lexically diverse)
[1, 2, 3]
>>> tree_rank("Tom bought 3 apples.", cands, k=3, min_paraqd=0.5)   # the T5DST variant's extra pruning
[1, 0, 2]
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from .base import SelectionCandidate, check_k, score_of

__all__ = [
    "STOPWORDS",
    "TreeNode",
    "build_tree",
    "default_content_lemmas",
    "jaccard_distance",
    "spacy_content_lemmas",
    "string_similarity",
    "tree_rank",
]

ContentLemmas = Callable[[str], "set[str]"]

# Function words that carry no content; deliberately small (articles, pronouns, auxiliaries,
# common prepositions and conjunctions) so that problem words such as "more" or "each" count.
STOPWORDS = frozenset(
    """a an the and or but if then so of to in on at by for with from as into than that this these those
    it its he she they them his her their him we us our you your i me my is are was were be been being
    am do does did has have had will would shall should can could may might must there here what which who
    whom whose""".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:[.,/][0-9]+)*")


def default_content_lemmas(text: str) -> set[str]:
    """Lower-cased alphanumeric words of ``text`` minus :data:`STOPWORDS`.

    >>> sorted(default_content_lemmas("The 3 apples of Tom cost $2.50."))
    ['2.50', '3', 'apples', 'cost', 'tom']
    """
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def spacy_content_lemmas(model: str | None = None) -> ContentLemmas:
    """A ``content_lemmas`` callable using spaCy: lower-cased lemmas of the tokens that are not
    stop words, punctuation or space (model: ``ml.text.nlp.DEFAULT_SPACY_MODEL`` by default)."""
    name = model or DEFAULT_SPACY_MODEL

    def lemmas(text: str) -> set[str]:
        return {t.lemma_.lower() for t in parse(text, name) if not (t.is_stop or t.is_punct or t.is_space)}

    return lemmas


def jaccard_distance(a: set[str], b: set[str]) -> float:
    """1 - |a & b| / |a | b|; 0 for two empty sets.

    >>> jaccard_distance({"tom", "apples"}, {"tom", "pears"})
    0.6666666666666667
    """
    union = a | b
    return 0.0 if not union else 1.0 - len(a & b) / len(union)


def string_similarity(a: str, b: str) -> float:
    """Normalised Indel similarity in [0, 1] (``rapidfuzz.fuzz.ratio`` / 100).

    >>> string_similarity("abc", "abd")
    0.6666666666666667
    """
    from rapidfuzz import fuzz

    return fuzz.ratio(a, b) / 100.0


@dataclass
class TreeNode:
    """A node of Algorithm 1: the metric value ``val`` it splits on, its children keyed by
    value, and at a leaf the indices (``sents``) of the candidates with this path."""

    val: float | None = None
    children: dict[float, TreeNode] = field(default_factory=dict)
    sents: list[int] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not self.sents and not self.children


def build_tree(paths: Sequence[Sequence[float]]) -> TreeNode:
    """Algorithm 1 on precomputed metric paths: candidate i follows ``paths[i]`` from the root,
    creating a node for each value not seen yet at that level.

    >>> root = build_tree([(0.5, 0.9), (0.5, 0.8), (0.0, 0.9)])
    >>> sorted(root.children), sorted(root.children[0.5].children), root.children[0.5].children[0.9].sents
    ([0.0, 0.5], [0.8, 0.9], [0])
    """
    root = TreeNode()
    for index, path in enumerate(paths):
        node = root
        for value in path:
            node = node.children.setdefault(value, TreeNode(val=value))
        node.sents.append(index)
    return root


def _pick_from_leaf(leaf: TreeNode, texts: Sequence[str]) -> int:
    counts = Counter(texts[i] for i in leaf.sents)
    # The most common text of the leaf (footnote 11); among equals the earliest candidate.
    return max(leaf.sents, key=lambda i: (counts[texts[i]], -i))


def _remove(root: TreeNode, path: Sequence[float], index: int) -> None:
    nodes = [root]
    for value in path:
        nodes.append(nodes[-1].children[value])
    nodes[-1].sents.remove(index)
    for parent, value, child in zip(reversed(nodes[:-1]), reversed(path), reversed(nodes[1:]), strict=True):
        if child.is_empty():
            del parent.children[value]


def _walk(node: TreeNode, decisions: Sequence[Callable[..., float]]) -> list[float]:
    """Depth-first from ``node``: at each level the decision function chooses the child value."""
    path: list[float] = []
    for decide in decisions:
        value = decide(node.children)
        path.append(value)
        node = node.children[value]
    return path


def tree_rank(
    source: str,
    candidates: Sequence[SelectionCandidate],
    *,
    k: int = 5,
    prune_jaccard: float = 0.75,
    content_lemmas: ContentLemmas | None = None,
    min_paraqd: float | None = None,
    similarity: Callable[[str, str], float] | None = None,
    decimals: int = 2,
) -> list[int]:
    """Indices of up to ``k`` candidates ranked by the tree, sorted v1..vk by Jaccard distance
    to ``source`` (see the module docstring for every step). ``similarity(source, text)``
    replaces the default string similarity :func:`string_similarity`."""
    check_k(k)
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")
    lemmas = content_lemmas or default_content_lemmas
    string_sim = similarity or string_similarity
    source_lemmas = lemmas(source)
    exact_j = [jaccard_distance(source_lemmas, lemmas(c.text)) for c in candidates]
    paths = [
        (
            round(j, decimals),
            round(score_of(c, "paraqd"), decimals),
            round(string_sim(source, c.text), decimals),
        )
        for j, c in zip(exact_j, candidates, strict=True)
    ]
    kept = [
        i for i, p in enumerate(paths) if p[0] <= prune_jaccard and (min_paraqd is None or p[1] >= min_paraqd)
    ]
    root = build_tree([paths[i] for i in kept])
    # Leaves hold positions in ``kept``; translate back at the end.
    texts = [candidates[i].text for i in kept]
    kept_paths = [paths[i] for i in kept]
    picks: list[int] = []

    def take(position: int) -> None:
        picks.append(position)
        _remove(root, kept_paths[position], position)

    syntactic = root.children.get(0.0)
    if syntactic is not None and k > 0:
        members = [i for e in syntactic.children.values() for s in e.children.values() for i in s.sents]
        take(min(members, key=lambda i: (kept_paths[i][2], -kept_paths[i][1], i)))

    while len(picks) < k and root.children:
        for j_value in sorted(root.children, reverse=True):
            if len(picks) >= k:
                break
            # Each level-1 node is visited once per round, so none has emptied since the sort.
            node = root.children[j_value]
            e_value, s_value = _walk(node, (max, min))
            leaf = node.children[e_value].children[s_value]
            take(_pick_from_leaf(leaf, texts))

    chosen = [kept[p] for p in picks]
    return sorted(chosen, key=lambda i: exact_j[i])
