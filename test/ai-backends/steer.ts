// Test-only steering for the random-weight tiny chat model: a per-step token bias that makes it
// write the given segments in order (e.g. a function call in the chat wrapper's syntax, then the
// query string inside the grammar-constrained arguments), so the real node-llama-cpp function
// calling path (detection, grammar, handler call, result injection) runs end to end.
import { type LlamaContextSequence, type LlamaModel, type Token, TokenBias } from 'node-llama-cpp';

/** `segments` are written in order; the whole sequence is repeated `times` times. */
export function steerTowards(segments: string[], times = 1) {
  let texts: string[] | undefined;
  let step = 0; // index into the repeated segment list
  const total = segments.length * times;
  return ({ model, sequence }: { model: LlamaModel; sequence: LlamaContextSequence }) => {
    // The bias callback runs before the token sampled last time is in `contextTokens`.
    let pending: number | undefined;
    let from = 0;
    return {
      tokenBias: () => {
        const bias = new TokenBias(model.tokenizer);
        texts ??= Array.from({ length: vocabularySize(model) }, (_, id) => model.detokenize([id as Token]));
        const tokens = sequence.contextTokens;
        const produced =
          model.detokenize(tokens.slice(from)) + (pending === undefined ? '' : texts[pending]!);
        pending = undefined;
        if (step >= total) return bias;
        const target = segments[step % segments.length]!;
        if (produced.includes(target)) {
          step++;
          from = tokens.length;
          return bias;
        }
        let k = Math.min(target.length, produced.length);
        while (k > 0 && !produced.endsWith(target.slice(0, k))) k--;
        const rest = target.slice(k);
        let best = -1;
        texts.forEach((t, id) => {
          if (t !== '' && rest.startsWith(t) && (best < 0 || t.length > texts![best]!.length)) best = id;
        });
        if (best >= 0) {
          bias.set(best as Token, { logit: 1000 });
          pending = best;
        }
        return bias;
      },
    };
  };
}

function vocabularySize(model: LlamaModel): number {
  const tokens = (model.fileInfo.metadata as unknown as { tokenizer?: { ggml?: { tokens?: unknown[] } } })
    .tokenizer?.ggml?.tokens;
  if (!tokens) throw new Error('model has no tokenizer.ggml.tokens');
  return tokens.length;
}
