/** Texts per embedding request: the spec's "batches of 32", shared by the index job and the provider. */
export const EMBED_BATCH = 32;
