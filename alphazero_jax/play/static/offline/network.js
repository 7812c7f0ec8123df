// The network of an exported agent in ONNX Runtime (Web in the page, Node in the tests): one
// position at a time, as the search asks (alphazero_jax/play/onnx_network.py wrote the graph:
// input "observations" float32[B, H, W, C], outputs "logits" float32[B, A], "value" [B]).

// `ort` is the onnxruntime module, `model` the .onnx file's bytes (Uint8Array), `bundle` the
// agent's JSON. Resolves to evaluate(observation) -> Promise<{logits, value}>.
export async function makeEvaluator(ort, model, bundle, options = {}) {
  const session = await ort.InferenceSession.create(model, options);
  const shape = [1, ...bundle.observation_shape];
  return async (observation) => {
    const input = new ort.Tensor("float32", observation, shape);
    const output = await session.run({ observations: input });
    return { logits: output.logits.data, value: output.value.data[0] };
  };
}
