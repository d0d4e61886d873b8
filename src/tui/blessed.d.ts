// The small part of neo-blessed the pane uses (the package ships no types).
declare module 'neo-blessed' {
  export interface Key {
    full: string;
    name?: string;
    ctrl: boolean;
    meta: boolean;
    shift: boolean;
    sequence?: string;
  }
  export interface Program {
    flush(): void;
    output: NodeJS.WritableStream;
    hideCursor(): void;
  }
  export interface Widget {
    setContent(text: string): void;
  }
  export interface Screen {
    width: number;
    height: number;
    program: Program;
    append(w: Widget): void;
    render(): void;
    destroy(): void;
    on(event: 'keypress', fn: (ch: string | undefined, key: Key) => void): void;
    on(event: 'resize', fn: () => void): void;
    exec(file: string, args: string[], options: object, cb: (err: Error | null, ok: boolean) => void): void;
  }
  export function screen(options: object): Screen;
  export function box(options: object): Widget;
  const blessed: { screen: typeof screen; box: typeof box };
  export default blessed;
}
