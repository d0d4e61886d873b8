import { parseArgs } from 'node:util';
import { setRole, upsertProfile } from '../../ai/profiles.js';
import { loadProfiles, saveProfiles } from '../../ai/profiles-file.js';
import { createError } from '../../errors.js';
import { profilesPath } from '../../storage/paths.js';
import type { CliIO } from '../io.js';
import { table } from '../progress.js';
import { parseRoles, toInt } from './store.js';

const USAGE = `usage:
  kortty-rag profile add NAME (--base-url URL --model NAME | --backend llama --model PATH.gguf)
        [--context-window N] [--family F] [--require-citations] [--retrieval before|tool|both]
        [--api-key-env VAR] [--role text|coding|both]
  kortty-rag profile list [--json]
  kortty-rag profile role text|coding NAME|none
Profiles live in $KORTTY_HOME/ai/profiles.json; API keys are read from the named environment variable.`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      backend: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'context-window': { type: 'string' },
      family: { type: 'string' },
      'require-citations': { type: 'boolean' },
      retrieval: { type: 'string' },
      'api-key-env': { type: 'string' },
      role: { type: 'string', multiple: true },
    },
  });
  const path = profilesPath();
  let cfg = await loadProfiles(path);
  switch (sub) {
    case 'add': {
      const name = positionals[0];
      if (!name || !values.model)
        throw createError('INVALID_ARGUMENT', { name: 'profile', reason: 'NAME and --model are required' });
      const backend = values.backend ?? (values['base-url'] ? 'openai' : 'llama');
      cfg = upsertProfile(
        cfg,
        {
          name,
          backend,
          model: values.model,
          ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
          contextWindow: values['context-window'] ? toInt(values['context-window'], 'context-window') : 8192,
          family: values.family ?? 'generic',
          requireCitations: values['require-citations'] ?? false,
          retrievalMode: values.retrieval ?? 'before',
          ...(values['api-key-env'] ? { apiKeyEnv: values['api-key-env'] } : {}),
        },
        path,
      );
      for (const r of parseRoles(values.role)) cfg = setRole(cfg, r, name, path);
      await saveProfiles(cfg, path);
      io.stdout.write(values.json ? `${JSON.stringify(cfg, null, 2)}\n` : `saved profile "${name}"\n`);
      return 0;
    }
    case 'list': {
      if (values.json) io.stdout.write(`${JSON.stringify(cfg, null, 2)}\n`);
      else {
        const roleOf = (n: string) =>
          Object.entries(cfg.roles)
            .filter(([, p]) => p === n)
            .map(([r]) => r)
            .join(',') || '-';
        io.stdout.write(
          cfg.profiles.length === 0
            ? 'no AI profiles yet: kortty-rag profile add NAME --base-url URL --model M --role text\n'
            : `${table([['NAME', 'BACKEND', 'MODEL', 'CONTEXT', 'CITATIONS', 'RETRIEVAL', 'ROLES'], ...cfg.profiles.map((p) => [p.name, p.backend, p.model, String(p.contextWindow), p.requireCitations ? 'required' : 'optional', p.retrievalMode, roleOf(p.name)])], io)}\n`,
        );
      }
      return 0;
    }
    case 'role': {
      const [role, name] = positionals;
      const [r] = parseRoles(role ? [role] : []);
      if (!r || !name)
        throw createError('INVALID_ARGUMENT', {
          name: 'role',
          reason: 'usage: profile role text|coding NAME|none',
        });
      cfg = setRole(cfg, r, name === 'none' ? undefined : name, path);
      await saveProfiles(cfg, path);
      io.stdout.write(`role ${r}: ${name}\n`);
      return 0;
    }
    default:
      io.stderr.write(`${USAGE}\n`);
      return 2;
  }
}
