// The encrypted vault as the faces unlock it (passphrase from the environment or a hidden prompt).

export { unlockVault } from '../vault/passphrase.js';
export type { Vault } from '../vault/vault.js';
