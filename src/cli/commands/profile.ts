import { MAX_CONTEXT_WINDOW, MIN_ANSWER_TOKENS, MIN_CONTEXT_WINDOW } from '../../app/limits.js';
import { loadProfiles, saveProfiles, setRole, upsertProfile } from '../../app/profiles.js';
import { profilesPath } from '../../storage/paths.js';
import { parseRoles, roleOption, wholeRange } from '../args.js';
import { type CommandGroup, defineCommand, usageError } from '../command.js';
import { table } from '../progress.js';

const add = defineCommand({
  name: 'profile add',
  summary: 'add or replace an AI profile (an OpenAI-compatible endpoint or a local GGUF chat model)',
  positionals: [{ name: 'NAME' }],
  synopsis: `NAME --base-url URL --model NAME [options]
kortty-rag profile add NAME --backend llama --model PATH.gguf [options]`,
  options: {
    backend: {
      type: 'string',
      value: 'B',
      help: 'chat backend (default: openai with --base-url, else llama)',
      choices: ['openai', 'llama'],
    },
    'base-url': {
      type: 'string',
      value: 'URL',
      help: 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1',
    },
    model: {
      type: 'string',
      value: 'NAME',
      help: 'model name at the endpoint, or a GGUF file for llama (required)',
    },
    'context-window': {
      type: 'string',
      value: 'N',
      help: "the model's context window in tokens (default 8192)",
      range: wholeRange(MIN_CONTEXT_WINDOW, MAX_CONTEXT_WINDOW, 'tokens'),
    },
    'max-tokens': {
      type: 'string',
      value: 'N',
      help: 'answer length cap sent as max_tokens (default min(context/4, 4096); at most half the context)',
      range: wholeRange(MIN_ANSWER_TOKENS, MAX_CONTEXT_WINDOW / 2, 'tokens'),
    },
    family: { type: 'string', value: 'F', help: 'model-family preset (default generic)' },
    'require-citations': { type: 'boolean', help: 'reject answers that cite no retrieved marker' },
    retrieval: {
      type: 'string',
      value: 'MODE',
      help: 'how excerpts reach the model',
      choices: ['before', 'tool', 'both'],
      default: 'before',
    },
    'api-key-env': { type: 'string', value: 'VAR', help: 'environment variable holding the API key' },
    role: roleOption,
  },
  notes: `Profiles live in $KORTTY_HOME/ai/profiles.json; API keys are read from the named
environment variable, never stored.`,
  async run({ values, args, json, io }) {
    if (!values.model) throw usageError('--model is required');
    const name = args.NAME!;
    const path = profilesPath();
    let cfg = await loadProfiles(path);
    const backend = values.backend ?? (values['base-url'] ? 'openai' : 'llama');
    cfg = upsertProfile(
      cfg,
      {
        name,
        backend,
        model: values.model,
        ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
        contextWindow: values['context-window'] ? Number(values['context-window']) : 8192,
        ...(values['max-tokens'] ? { maxTokens: Number(values['max-tokens']) } : {}),
        family: values.family ?? 'generic',
        requireCitations: values['require-citations'] ?? false,
        retrievalMode: values.retrieval ?? 'before',
        ...(values['api-key-env'] ? { apiKeyEnv: values['api-key-env'] } : {}),
      },
      path,
    );
    for (const r of parseRoles(values.role)) cfg = setRole(cfg, r, name, path);
    await saveProfiles(cfg, path);
    io.stdout.write(json ? `${JSON.stringify(cfg, null, 2)}\n` : `saved profile "${name}"\n`);
    return 0;
  },
});

const list = defineCommand({
  name: 'profile list',
  summary: 'list AI profiles and the roles they serve',
  options: {},
  async run({ io, json }) {
    const cfg = await loadProfiles(profilesPath());
    if (json) {
      io.stdout.write(`${JSON.stringify(cfg, null, 2)}\n`);
      return 0;
    }
    const roleOf = (n: string) =>
      Object.entries(cfg.roles)
        .filter(([, p]) => p === n)
        .map(([r]) => r)
        .join(',') || '-';
    io.stdout.write(
      cfg.profiles.length === 0
        ? 'no AI profiles yet: kortty-rag profile add NAME --base-url URL --model M --role text\n'
        : `${table([
            ['NAME', 'BACKEND', 'MODEL', 'CONTEXT', 'CITATIONS', 'RETRIEVAL', 'ROLES'],
            ...cfg.profiles.map((p) => [
              p.name,
              p.backend,
              p.model,
              String(p.contextWindow),
              p.requireCitations ? 'required' : 'optional',
              p.retrievalMode,
              roleOf(p.name),
            ]),
          ])}\n`,
    );
    return 0;
  },
});

const role = defineCommand({
  name: 'profile role',
  summary: 'assign the profile that serves a role (none: unassign)',
  positionals: [{ name: 'ROLE', choices: ['text', 'coding'] }, { name: 'NAME' }],
  synopsis: 'text|coding NAME|none',
  options: {},
  async run({ args, out }) {
    const path = profilesPath();
    let cfg = await loadProfiles(path);
    const r = args.ROLE as 'text' | 'coding';
    const name = args.NAME!;
    cfg = setRole(cfg, r, name === 'none' ? undefined : name, path);
    await saveProfiles(cfg, path);
    out({ role: r, profile: name === 'none' ? null : name }, `role ${r}: ${name}`);
    return 0;
  },
});

export const definition: CommandGroup = {
  name: 'profile',
  summary: 'AI profiles and roles',
  commands: [add, list, role],
};
