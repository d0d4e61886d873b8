// Declared ranges of numeric settings (command options, config.json fields). Pure. A value out of
// its range is refused with the range named, never clamped: Node clamps a timer delay above
// 2^31-1 ms to 1 ms, so an unchecked "very long" duration becomes a busy loop.

/** The longest delay setTimeout/setInterval honour (larger ones fire after 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface NumberRange {
  min: number;
  max: number;
  /** Whole numbers only. */
  integer?: boolean;
  /** What the number counts, shown with the range: `minutes`, `ms`, `MiB`, `tokens`. */
  unit?: string;
}

/** The largest whole count of `msPerUnit` that still fits a timer. */
export const timerMax = (msPerUnit: number): number => Math.floor(MAX_TIMER_MS / msPerUnit);

/** `a whole number from 1 to 2147483 (seconds)` */
export function describeRange(r: NumberRange): string {
  return `${r.integer ? 'a whole number' : 'a number'} from ${r.min} to ${r.max}${r.unit ? ` (${r.unit})` : ''}`;
}

/** True when `n` is a finite number inside the range (whole when the range says so). */
export function inRange(n: number, r: NumberRange): boolean {
  return Number.isFinite(n) && (!r.integer || Number.isInteger(n)) && n >= r.min && n <= r.max;
}

/** Why the text is not a number inside the range, or undefined when it is. */
export function rangeProblem(text: string, r: NumberRange): string | undefined {
  return text.trim() !== '' && inRange(Number(text), r) ? undefined : `must be ${describeRange(r)}`;
}
