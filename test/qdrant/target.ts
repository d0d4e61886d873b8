import { randomBytes } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { checkEndpoint, clientTarget } from '../../src/qdrant/endpoint-policy.js';
import { type FakeQdrant, startFakeQdrant } from '../helpers/fake-qdrant.js';

// Where contract tests run: a real Qdrant when KORTTY_QDRANT_URL is set (optional
// KORTTY_QDRANT_API_KEY), otherwise the loopback fake. Each target gets a unique collection
// name and an admin client (the plain official client, used only for setup and inspection);
// cleanup drops the test collections. The adapter itself never deletes a collection.

export interface Target {
  url: string;
  apiKey?: string;
  /** Only when running against the fake: request log and fault hooks. */
  fake?: FakeQdrant;
  admin: QdrantClient;
  name(tag?: string): string;
  cleanup(): Promise<void>;
  real: boolean;
}

export async function openTarget(): Promise<Target> {
  const realUrl = process.env.KORTTY_QDRANT_URL;
  let fake: FakeQdrant | undefined;
  let url: string;
  let apiKey: string | undefined;
  if (realUrl) {
    url = realUrl;
    apiKey = process.env.KORTTY_QDRANT_API_KEY || undefined;
  } else {
    apiKey = `kq-test-${randomBytes(8).toString('hex')}`;
    fake = await startFakeQdrant({ apiKey });
    url = fake.url;
  }
  const t = clientTarget(checkEndpoint(url));
  const admin = new QdrantClient({
    url: t.url,
    ...(t.prefix ? { prefix: t.prefix } : {}),
    port: null,
    checkCompatibility: false,
    ...(apiKey ? { headers: { 'api-key': apiKey } } : {}),
  });
  const created: string[] = [];
  const run = randomBytes(4).toString('hex');
  return {
    url,
    ...(apiKey ? { apiKey } : {}),
    ...(fake ? { fake } : {}),
    admin,
    real: fake === undefined,
    name(tag = 'c') {
      const n = `kortty_test_${run}_${tag}_${created.length}`;
      created.push(n);
      return n;
    },
    async cleanup() {
      for (const n of created) await admin.deleteCollection(n).catch(() => {});
      await fake?.close();
    },
  };
}

/** A deterministic unit-ish vector pointing mostly along axis `axis`. */
export function vec(dim: number, axis: number, wobble = 0): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = 0.01 * ((i * 7 + wobble) % 5);
  v[axis % dim] = 1;
  return v;
}
