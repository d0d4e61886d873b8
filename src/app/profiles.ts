// AI profiles and role assignments for the faces (ai/profiles.ts is the pure model,
// ai/profiles-file.ts its validated file).

export { setRole, upsertProfile } from '../ai/profiles.js';
export { loadProfiles, saveProfiles } from '../ai/profiles-file.js';
