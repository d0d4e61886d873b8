import { korttyHome } from '../../storage/paths.js';
import { configNotice, loadKeymap, loadTheme, readTuiConfig } from '../../tui/config-files.js';
import { type CommandContext, defineCommand } from '../command.js';
import type { CliIO } from '../io.js';

const options = {
  keymap: { type: 'string', value: 'NAME|FILE', help: 'default, vim, emacs, or a JSON keymap file' },
  theme: { type: 'string', value: 'NAME|FILE', help: 'dark, light, high-contrast, or a JSON theme file' },
  'ensure-default-store': {
    type: 'boolean',
    help: 'on a fresh install, create the default local store first',
  },
} as const;

export const definition = defineCommand({
  name: 'tui',
  summary: 'the knowledge-stores manager (the default command)',
  synopsis: '[--keymap NAME|FILE] [--theme NAME|FILE]\nkortty-rag [--keymap NAME|FILE] [--theme NAME|FILE]',
  options,
  noJson: true,
  notes: `Files in $KORTTY_HOME/rag/keymaps/ and rag/themes/ override the shipped ones of the same name;
$KORTTY_HOME/rag/config.json may set {"tui": {"keymap", "theme"}}. Press ? inside for the keys.`,
  run: runTui,
});

async function runTui({ values, io }: CommandContext<typeof options>): Promise<number> {
  if (!io.stdout.isTTY || !io.stdin.isTTY) {
    io.stderr.write(
      'kortty-rag tui: needs an interactive terminal (stdin and stdout must be a TTY); the other commands work in scripts\n',
    );
    return 2;
  }
  const home = korttyHome(io.env);
  if (values['ensure-default-store']) await ensureDefaultStore(home, io);
  const cfg = readTuiConfig(home);
  // Unknown top-level keys in config.json: shown once, on the first frame.
  const notice = configNotice(home);
  // Both are validated before the screen is taken over, so a bad file is reported on a normal terminal.
  const keymap = loadKeymap(values.keymap ?? cfg.keymap ?? 'default', home, io.cwd);
  const theme = loadTheme(values.theme ?? cfg.theme ?? 'dark', home, io.cwd);
  const [{ runApp }, { createScreen }, { createServices }, { createLoopStats }, { detectColourDepth }] =
    await Promise.all([
      import('../../tui/app.js'),
      import('../../tui/screen.js'),
      import('../../tui/services.js'),
      import('../../tui/signal.js'),
      import('../../tui/terminfo-file.js'),
    ]);
  const code = await runApp({
    services: createServices(home),
    keymap,
    theme,
    screen: createScreen({ theme, depth: detectColourDepth(io.env) }),
    env: io.env,
    test: io.env.KORTTY_TUI_TEST === '1',
    loop: createLoopStats(io.env.KORTTY_TUI_LOOP_STATS),
    ...(notice ? { notice } : {}),
  });
  // A loaded embedding model can hold the event loop open; the pane is closed, so leave.
  setTimeout(() => process.exit(code), 300).unref();
  return code;
}

/**
 * `npm start`: a fresh install opens on a default local store. Its model is the installed default,
 * else the offline lexical starter (generated here, no network; it matches words, not meaning).
 */
async function ensureDefaultStore(home: string, io: CliIO): Promise<void> {
  const { listStores } = await import('../../store/store-config.js');
  if ((await listStores(home)).length > 0) return;
  const { defaultStoreModel } = await import('../../store/model-resolve.js');
  const { createStore } = await import('../../store/engine.js');
  const modelId = await defaultStoreModel(home);
  io.stderr.write(`creating the default local store "Local" (model ${modelId})…\n`);
  await createStore({ name: 'Local', modelId, roles: ['text'] }, home);
}
