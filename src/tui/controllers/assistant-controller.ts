import { defaultModelId, LEXICAL_STARTER_ID } from '../../app/models.js';
import { formatBytes } from '../../app/present.js';
import type { Binding } from '../bindings.js';
import { ModelTaskError, type ModelTaskHandle } from '../model-task.js';
import type { AssistantDialog, CreateDialog } from '../state.js';
import { openBrowser } from './browser-controller.js';
import type { Ctx, Scope } from './ctx.js';
import { listBindings } from './list-bindings.js';
import { modelInstalled } from './model-choice.js';

// The local-model setup assistant (embedding role preselected): install a catalog model (download
// with progress and cancel), generate the offline lexical starter, or register a local GGUF file.
// Model work runs in a child process (model-task-child.ts).

const tasks = new WeakMap<AssistantDialog, ModelTaskHandle>();

export function openAssistant(ctx: Ctx, fromCreate: boolean) {
  const { rows, memBytes } = ctx.services.catalog(ctx.state.models);
  const d: AssistantDialog = {
    kind: 'assistant',
    rows,
    memBytes,
    selected: Math.max(
      0,
      rows.findIndex((r) => r.id === defaultModelId),
    ),
    fromCreate,
  };
  ctx.push(d);
}

async function runTask(
  ctx: Ctx,
  d: AssistantDialog,
  label: string,
  spec: Parameters<Ctx['services']['startModelTask']>[0],
) {
  d.error = undefined;
  d.task = { label, startedAt: Date.now(), cancelling: false };
  const handle = ctx.services.startModelTask(spec, (p) => {
    if (d.task) d.task.progress = p;
    ctx.render();
  });
  tasks.set(d, handle);
  ctx.render();
  try {
    const id = await handle.done;
    d.task = undefined;
    await ctx.refresh();
    const { rows } = ctx.services.catalog(ctx.state.models);
    d.rows = rows;
    ctx.notify(`Installed the embedding model ${id}.`, 'ok');
    if (d.fromCreate) {
      ctx.pop(d);
      const create = ctx.state.dialogs.findLast((x): x is CreateDialog => x.kind === 'create');
      if (create) modelInstalled(create, ctx.state.models, id);
    }
  } catch (err) {
    d.task = undefined;
    d.error =
      err instanceof ModelTaskError && err.cancelled
        ? 'Cancelled. A cancelled download resumes where it stopped when you install the model again.'
        : (err as Error).message;
  } finally {
    tasks.delete(d);
    ctx.render();
  }
}

function installBlocked(ctx: Ctx, d: AssistantDialog): string | undefined {
  if (d.task) return 'a model task is already running';
  const r = d.rows[d.selected];
  if (r && !r.fits)
    return `needs ${formatBytes(r.minMemoryBytes)} of memory; this computer has ${formatBytes(d.memBytes)}`;
  void ctx;
  return undefined;
}

function localFile(ctx: Ctx, d: AssistantDialog) {
  return openBrowser(ctx, 'gguf', 'model', (paths) =>
    runTask(ctx, d, `Checking and registering ${paths[0]}…`, { op: 'local', path: paths[0]! }),
  );
}

export function assistantScope(ctx: Ctx, d: AssistantDialog): Scope {
  const bindings: Binding[] = [
    {
      action: 'assistant.install',
      handler: () => {
        const r = d.rows[d.selected];
        if (!r) return localFile(ctx, d);
        if (r.installed) {
          d.task = undefined;
          return runTask(
            ctx,
            d,
            `Checking ${r.id}…`,
            r.id === LEXICAL_STARTER_ID ? { op: 'starter' } : { op: 'install', id: r.id },
          );
        }
        if (r.id === LEXICAL_STARTER_ID)
          return runTask(ctx, d, 'Generating the lexical starter model (about 10 s the first time)…', {
            op: 'starter',
          });
        return runTask(ctx, d, `Downloading ${r.label}…`, { op: 'install', id: r.id });
      },
      disabledReason: () => installBlocked(ctx, d),
    },
    {
      action: 'assistant.localFile',
      handler: () => localFile(ctx, d),
      disabledReason: () => (d.task ? 'a model task is already running' : undefined),
    },
    {
      action: 'job.cancel',
      description: 'Cancel the download or model task',
      handler: () => {
        if (d.task) d.task.cancelling = true;
        tasks.get(d)?.cancel();
      },
      disabledReason: () =>
        !d.task ? 'nothing is running' : d.task.cancelling ? 'already cancelling' : undefined,
    },
    {
      action: 'universal.back',
      description: d.fromCreate ? 'Back to Create' : 'Close the assistant',
      handler: () => ctx.pop(d),
      disabledReason: () => (d.task ? 'a model task is running; cancel it first' : undefined),
    },
    ...listBindings({ count: () => d.rows.length + 1, get: () => d.selected, set: (i) => (d.selected = i) }),
  ];
  return { chain: 'assistant', groups: [{ title: 'Model setup assistant', bindings }] };
}
