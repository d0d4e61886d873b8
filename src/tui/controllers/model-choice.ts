import { LEXICAL_STARTER_ID as STARTER_MODEL_ID } from '../../app/models.js';
import { formatBytes } from '../../app/present.js';
import { setOptions } from '../forms.js';
import type { CreateDialog, ModelChoice } from '../state.js';

// The create dialog's model choice, shared with the assistant that installs a model for it.

export function modelOptions(models: readonly ModelChoice[]) {
  return models.map((m) => ({
    value: m.id,
    label:
      m.id === STARTER_MODEL_ID ? `${m.id} (matches words, not meaning)` : `${m.id} (${formatBytes(m.size)})`,
  }));
}

export function modelInstalled(d: CreateDialog, models: readonly ModelChoice[], id: string) {
  d.form = setOptions(d.form, 'model', modelOptions(models), id);
}
