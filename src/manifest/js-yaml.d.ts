/** The part of js-yaml 4's API that fast-yaml.ts uses (the package ships no type declarations). */
declare module 'js-yaml' {
  export class Type {
    constructor(tag: string, options: { kind: 'scalar' | 'sequence' | 'mapping'; resolve?: (data: any) => boolean; construct?: (data: any) => unknown });
  }
  export class Schema {
    extend(types: { implicit?: Type[]; explicit?: Type[] }): Schema;
  }
  export const FAILSAFE_SCHEMA: Schema;
  export interface LoaderState {
    position: number;
    anchor: string | null;
    /** The value of the node being closed (at a `close` event). */
    result: unknown;
  }
  export interface LoadOptions {
    schema?: Schema;
    json?: boolean;
    maxDepth?: number;
    onWarning?: (e: Error) => void;
    listener?: (event: 'open' | 'close', state: LoaderState) => void;
  }
  export function load(text: string, options?: LoadOptions): unknown;
}
