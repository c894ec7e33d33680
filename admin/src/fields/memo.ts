// A component that re-renders only when its props change (shallow; arrays such as `path`
// compared item by item): what keeps a keystroke to the one field it changes.
import { Component, h, type ComponentType, type FunctionComponent } from "preact";

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.length <= 8) {
    return a.every((x, i) => x === b[i]);
  }
  return false;
}

export function shallowEqual(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export function memo<P extends object>(render: FunctionComponent<P>): ComponentType<P> {
  class Memo extends Component<P> {
    shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props, next);
    }
    render() {
      return h(render as FunctionComponent<object>, this.props);
    }
  }
  (Memo as unknown as { displayName: string }).displayName = `Memo(${render.displayName ?? render.name})`;
  return Memo as unknown as ComponentType<P>;
}
