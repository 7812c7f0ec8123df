// The agents' search for the offline page: mctx's PUCT (muzero_policy) and Gumbel
// (gumbel_muzero_policy) searches as alphazero_jax plays them (search/mctx_search.py and
// search/choice.py: no root noise, raw Q values in [-1, 1] with an unvisited child valued at
// its parent for PUCT, mctx's completed Q without rescaling for Gumbel, a discount of -1 per
// ply, the game's heuristic mixed into the values where the agent does), for one position,
// written after mctx's source (search.py, action_selection.py, qtransforms.py,
// seq_halving.py). The move is the most visited one (PUCT) or sequential halving's choice
// (Gumbel). tests/play/test_offline_search.py finds its moves and values equal to JAX's.
//
// Where mctx breaks a tie between equal PUCT scores with 1e-7 of noise, this takes the
// first; the one place exact ties are common, a finished game's node, changes no value.

const FLOAT_MIN = -3.4028234663852886e38; // float32's lowest, as mask_logits writes it
const TINY = 1.1754943508222875e-38; // float32's smallest normal
const f32 = Math.fround;

function softmax(logits) {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  const exps = logits.map((x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => f32(e / sum));
}

function argmax(scores, invalid = null) {
  let best = -1;
  let bestScore = -Infinity;
  for (let a = 0; a < scores.length; a++) {
    const score = invalid && invalid[a] ? -Infinity : scores[a];
    if (best < 0 || score > bestScore) {
      best = a;
      bestScore = score;
    }
  }
  return best;
}

// mctx's _mask_invalid_actions: logits less their maximum, invalid ones float32's lowest.
function maskInvalid(logits, invalid) {
  const max = Math.max(...logits);
  return logits.map((x, a) => (invalid[a] ? FLOAT_MIN : f32(x - max)));
}

// seq_halving.get_sequence_of_considered_visits.
function consideredVisits(maxConsidered, numSimulations) {
  if (maxConsidered <= 1) return Array.from({ length: numSimulations }, (_, i) => i);
  const log2max = Math.ceil(Math.log2(maxConsidered));
  const sequence = [];
  const visits = new Array(maxConsidered).fill(0);
  let numConsidered = maxConsidered;
  while (sequence.length < numSimulations) {
    const extra = Math.max(1, Math.floor(numSimulations / (log2max * numConsidered)));
    for (let i = 0; i < extra; i++) {
      sequence.push(...visits.slice(0, numConsidered));
      for (let j = 0; j < numConsidered; j++) visits[j] += 1;
    }
    numConsidered = Math.max(2, Math.floor(numConsidered / 2));
  }
  return sequence.slice(0, numSimulations);
}

class Tree {
  constructor(numNodes, numActions) {
    this.numActions = numActions;
    this.nodeVisits = new Int32Array(numNodes);
    this.rawValues = new Float32Array(numNodes);
    this.nodeValues = new Float32Array(numNodes);
    this.parents = new Int32Array(numNodes).fill(-1);
    this.actionFromParent = new Int32Array(numNodes).fill(-1);
    const perAction = numNodes * numActions;
    this.childrenIndex = new Int32Array(perAction).fill(-1);
    this.childrenPriorLogits = new Float32Array(perAction);
    this.childrenValues = new Float32Array(perAction);
    this.childrenVisits = new Int32Array(perAction);
    this.childrenRewards = new Float32Array(perAction);
    this.childrenDiscounts = new Float32Array(perAction);
    this.states = new Array(numNodes);
  }

  row(array, node) {
    return Array.from(array.subarray(node * this.numActions, (node + 1) * this.numActions));
  }

  qvalues(node) {
    const rewards = this.row(this.childrenRewards, node);
    const discounts = this.row(this.childrenDiscounts, node);
    const values = this.row(this.childrenValues, node);
    return rewards.map((r, a) => f32(r + f32(discounts[a] * values[a])));
  }

  setNode(node, logits, value, state) {
    this.childrenPriorLogits.set(logits, node * this.numActions);
    this.rawValues[node] = value;
    this.nodeValues[node] = value;
    this.nodeVisits[node] += 1;
    this.states[node] = state;
  }
}

// PUCT's value term (mctx_search.qtransform_alphazero).
function qAlphaZero(tree, node) {
  const visits = tree.row(tree.childrenVisits, node);
  return tree.qvalues(node).map((q, a) => (visits[a] > 0 ? q : tree.nodeValues[node]));
}

// mctx's qtransform_completed_by_mix_value with rescale_values=False, its value_scale and
// maxvisit_init the bundle's.
function qCompleted(tree, node, settings) {
  const q = tree.qvalues(node);
  const visits = tree.row(tree.childrenVisits, node);
  const priors = softmax(tree.row(tree.childrenPriorLogits, node)).map((p) => Math.max(TINY, p));
  let sumVisits = 0;
  let sumProbs = 0;
  for (let a = 0; a < q.length; a++) {
    sumVisits += visits[a];
    if (visits[a] > 0) sumProbs = f32(sumProbs + priors[a]);
  }
  let weighted = 0;
  for (let a = 0; a < q.length; a++) {
    if (visits[a] > 0) weighted = f32(weighted + f32(f32(priors[a] * q[a]) / sumProbs));
  }
  const mixed = f32(f32(tree.rawValues[node] + f32(sumVisits * weighted)) / (sumVisits + 1));
  const scale = f32((settings.maxvisit_init + Math.max(...visits)) * f32(settings.value_scale));
  return q.map((value, a) => f32(scale * (visits[a] > 0 ? value : mixed)));
}

function scoreConsidered(consideredVisit, logits, completed, visits) {
  const max = Math.max(...logits);
  return logits.map((x, a) => {
    const score = Math.max(-1e9, f32(f32(x - max) + completed[a]));
    return visits[a] === consideredVisit ? score : -Infinity;
  });
}

function makeSelect(settings, numSimulations) {
  if (settings.policy === "puct") {
    const { c_puct: cInit, c_puct_base: cBase } = settings;
    return (tree, node, depth, invalid) => {
      const nodeVisit = tree.nodeVisits[node];
      const pbC = f32(cInit + Math.log((nodeVisit + cBase + 1) / cBase));
      const priors = softmax(tree.row(tree.childrenPriorLogits, node));
      const visits = tree.row(tree.childrenVisits, node);
      const values = qAlphaZero(tree, node);
      const explore = f32(Math.sqrt(nodeVisit) * pbC);
      const scores = values.map((v, a) => f32(v + f32(f32(explore * priors[a]) / (visits[a] + 1))));
      return argmax(scores, depth === 0 ? invalid : null);
    };
  }
  const maxConsidered = settings.max_num_considered_actions;
  const table = Array.from({ length: maxConsidered + 1 }, (_, m) => consideredVisits(m, numSimulations));
  return (tree, node, depth, invalid) => {
    const visits = tree.row(tree.childrenVisits, node);
    const logits = tree.row(tree.childrenPriorLogits, node);
    const completed = qCompleted(tree, node, settings);
    if (depth === 0) {
      const numValid = invalid.filter((x) => !x).length;
      const simulation = visits.reduce((a, b) => a + b, 0);
      const considered = table[Math.min(maxConsidered, numValid)][simulation];
      return argmax(scoreConsidered(considered, logits, completed, visits), invalid);
    }
    const probs = softmax(logits.map((x, a) => f32(x + completed[a])));
    const total = visits.reduce((a, b) => a + b, 0);
    return argmax(probs.map((p, a) => p - visits[a] / (1 + total)));
  };
}

// A search of `state` (not finished) with the agent's `settings` (a bundle's "search"):
// `evaluate(observation)` resolves to the network's {logits, value} for one position.
// Resolves to {action, value, visitProbs, visitCounts, evaluations}: the move, the root's
// value for the mover, each move's share of the root's visits.
export async function search(game, evaluate, settings, state) {
  const numSimulations = settings.num_simulations;
  const weight = settings.heuristic_weight || 0;
  if (weight && !game.heuristic) throw new Error(`${game.name}: the search mixes in a heuristic, and the page's rules have none.`);
  const numActions = game.numActions;
  const tree = new Tree(numSimulations + 1, numActions);
  let evaluations = 0;

  // Masked prior logits and value of a position (mctx_search._evaluate).
  async function evaluated(position) {
    const legal = game.legal(position);
    const output = await evaluate(game.observe(position));
    evaluations += 1;
    const logits = Array.from(output.logits, (x, a) => (legal[a] ? x : FLOAT_MIN));
    let value = output.value;
    if (weight) value = f32(f32((1 - weight) * value) + f32(weight * game.heuristic(position)));
    return { logits, value };
  }

  const legal = game.legal(state);
  const anyLegal = legal.some(Boolean);
  const invalid = legal.map((x) => anyLegal && !x);
  const root = await evaluated(state);
  let rootLogits;
  if (settings.policy === "puct") {
    const probs = softmax(root.logits); // no Dirichlet noise: (1 - 0) * probs
    rootLogits = maskInvalid(probs.map((p) => f32(Math.log(Math.max(p, TINY)))), invalid);
  } else {
    rootLogits = maskInvalid(root.logits, invalid);
  }
  tree.setNode(0, rootLogits, root.value, state);
  const select = makeSelect(settings, numSimulations);
  const discount = settings.discount;

  for (let sim = 0; sim < numSimulations; sim++) {
    let node = 0;
    let action;
    for (let depth = 0; ; ) {
      action = select(tree, node, depth, invalid);
      const next = tree.childrenIndex[node * numActions + action];
      depth += 1;
      if (next < 0 || depth >= numSimulations) break;
      node = next;
    }
    const edge = node * numActions + action;
    const child = tree.childrenIndex[edge] < 0 ? sim + 1 : tree.childrenIndex[edge];
    const parentState = tree.states[node];
    const nextState = game.step(parentState, action);
    const reward = parentState.terminal ? 0 : game.rewards(nextState)[parentState.currentPlayer];
    const over = nextState.terminal;
    // A finished game's node: value 0, and every move illegal (its priors all equal).
    const { logits, value } = over
      ? { logits: new Array(numActions).fill(FLOAT_MIN), value: 0 }
      : await evaluated(nextState);
    tree.setNode(child, logits, value, nextState);
    tree.childrenIndex[edge] = child;
    tree.childrenRewards[edge] = reward;
    tree.childrenDiscounts[edge] = over ? 0 : -discount;
    tree.parents[child] = node;
    tree.actionFromParent[child] = action;
    backward(tree, child);
  }

  const visitCounts = tree.row(tree.childrenVisits, 0);
  const total = visitCounts.reduce((a, b) => a + b, 0);
  const visitProbs = visitCounts.map((v) => (total > 0 ? v / Math.max(total, 1) : 1 / numActions));
  let action;
  if (settings.policy === "puct") {
    action = argmax(visitProbs);
  } else {
    const considered = Math.max(...visitCounts);
    const scores = scoreConsidered(considered, rootLogits, qCompleted(tree, 0, settings), visitCounts);
    action = argmax(scores, invalid);
  }
  return { action, value: tree.nodeValues[0], visitProbs, visitCounts, evaluations };
}

function backward(tree, leaf) {
  let leafValue = tree.nodeValues[leaf];
  for (let index = leaf; index !== 0; ) {
    const parent = tree.parents[index];
    const count = tree.nodeVisits[parent];
    const edge = parent * tree.numActions + tree.actionFromParent[index];
    leafValue = f32(tree.childrenRewards[edge] + f32(tree.childrenDiscounts[edge] * leafValue));
    const parentValue = f32(f32(f32(tree.nodeValues[parent] * count) + leafValue) / (count + 1));
    tree.childrenValues[edge] = tree.nodeValues[index];
    tree.childrenVisits[edge] += 1;
    tree.nodeValues[parent] = parentValue;
    tree.nodeVisits[parent] = count + 1;
    index = parent;
  }
}
