"""moto's expressions parsed once per text, and its update trees copied and walked at less cost.

moto parses a request's expressions afresh at every step: an UpdateItem's update expression twice
(the response layer, for the names it uses, and the backend), its condition twice, and a
transaction item's condition three times. The ingest function's writes repeat a few texts (their
placeholders are numbered; only the values vary), each up to ~170 actions or 64 conditions: the
100,000-click test took 294 s without this and 195 s with it (one run each on a quiet machine;
1.46x the CPU time in a pair run side by side on a busy one). `install()` keeps:

- an update expression's tree per text, shared: moto reads it (the names and values it uses) and
  its validator rewrites a copy, made from the tree's pickle (three to six times faster than
  deepcopy, which walked the tree's parent links through its memo);
- a condition expression's tokens per text, and its parsed condition per text, names and values
  (a condition holds its values; moto never changes it once built);
- moto's tree walk as it was, without building the list of the node types a processor takes and
  asking abc's isinstance again at every node (the answers depend on the classes alone): half
  the time of a validation.

A wrong expression is parsed again each time and fails as before: only what parsed is kept.
For the test double only: nothing in the Lambda functions imports this.
"""

import copy
import pickle
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb.parsing import ast_nodes, expressions, validators

# Enough for the texts of a test run: they repeat, their values do not.
MAX_TEXTS = 4_096
MAX_CONDITIONS = 256

_installed = False
# The server answers requests on threads of its own: one of them at a time adds to a cache
_adding = threading.Lock()
# (owner, name, moto's own): what `install()` replaced, for the test that compares the two
MOTO_OWN: list[tuple[Any, str, Any]] = []


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    _update_trees_per_text()
    _condition_tokens_per_text()
    _conditions_per_text_and_values()
    _tree_walk_by_class()


def _replace(owner: Any, name: str, new: Any) -> None:
    MOTO_OWN.append((owner, name, vars(owner)[name]))
    setattr(owner, name, new)


def _remember(cache: dict[Any, Any], key: Any, value: Any, limit: int) -> Any:
    with _adding:
        if len(cache) >= limit:
            del cache[next(iter(cache))]  # the oldest
        cache[key] = value
    return value


def _update_trees_per_text() -> None:
    parser = expressions.UpdateExpressionParser  # type: ignore[attr-defined]
    real_make: Callable[[str], Any] = parser.make
    trees: dict[str, Any] = {}
    pickled: dict[int, bytes] = {}  # by the id of a tree in `trees` (kept alive there)

    def make(expression: str) -> Any:
        tree = trees.get(expression)
        if tree is None:
            tree = real_make(expression)
            blob = pickle.dumps(tree)
            with _adding:
                if expression in trees:  # another thread's, parsed meanwhile
                    return trees[expression]
                if len(trees) >= MAX_TEXTS:
                    del pickled[id(trees.pop(next(iter(trees))))]  # the oldest
                pickled[id(tree)], trees[expression] = blob, tree
        return tree

    _replace(parser, "make", make)
    real_deepcopy = copy.deepcopy

    def deepcopy(node: Any, memo: Any = None) -> Any:
        if isinstance(node, ast_nodes.UpdateExpression):  # type: ignore[attr-defined]
            return pickle.loads(pickled.get(id(node)) or pickle.dumps(node))  # noqa: S301 (pickled here, of moto's own tree)
        return real_deepcopy(node, memo)

    _replace(validators, "deepcopy", deepcopy)


def _condition_tokens_per_text() -> None:
    parser = comparisons.ConditionExpressionParser
    real_lex = parser._lex_condition_expression
    tokens: dict[str, tuple[Any, ...]] = {}

    def lex(self: Any) -> deque[Any]:
        found = tokens.get(self.condition_expression)
        if found is None:
            found = _remember(tokens, self.condition_expression, tuple(real_lex(self)), MAX_TEXTS)
        # Nodes are tuples and no step changes a token's (empty) children; a fresh list each all the same
        return deque(node._replace(children=[]) for node in found)

    _replace(parser, "_lex_condition_expression", lex)


def _conditions_per_text_and_values() -> None:
    parser = comparisons.ConditionExpressionParser
    real_parse = parser.parse
    parsed: dict[tuple[str, str, str], tuple[Any, list[str], list[str]]] = {}

    def parse(self: Any) -> Any:
        if not self.condition_expression:
            return real_parse(self)
        # repr tells the values' types apart ({"N": "1"} from {"S": "1"}, b"1" from "1")
        key = (self.condition_expression, repr(self.expression_attribute_names), repr(self.expression_attribute_values))
        found = parsed.get(key)
        if found is None:
            condition = real_parse(self)
            names, values = list(self.expr_attr_names_found), list(self.expr_attr_values_found)
            found = _remember(parsed, key, (condition, names, values), MAX_CONDITIONS)
        else:
            self.expr_attr_names_found.extend(found[1])
            self.expr_attr_values_found.extend(found[2])
        return found[0]

    _replace(parser, "parse", parse)


def _tree_walk_by_class() -> None:
    """moto's DepthFirstTraverser.traverse_node_recursively, step for step, with the class checks
    looked up (a processor's node types are the keys of its fixed processing map)."""
    node_type = ast_nodes.Node  # type: ignore[attr-defined]
    is_node: dict[type, bool] = {}
    processes: dict[tuple[type, type], bool] = {}

    def walk(self: Any, node: Any, child_id: int = -1) -> Any:
        kind = type(node)
        known = is_node.get(kind)
        if known is None:
            known = is_node[kind] = isinstance(node, node_type)
        if not known:
            return node
        parent_node = node.parent
        if node.children is not None:
            for i, child_node in enumerate(node.children):
                self.pre_processing_of_child(node, i)
                walk(self, child_node, i)
        pair = (type(self), kind)
        taken = processes.get(pair)
        if taken is None:
            taken = processes[pair] = isinstance(node, self.nodes_to_be_processed())
        if taken:
            node = self.process(node)
            node.parent = parent_node
            if parent_node:
                parent_node.children[child_id] = node
        return node

    _replace(ast_nodes.DepthFirstTraverser, "traverse_node_recursively", walk)  # type: ignore[attr-defined]
