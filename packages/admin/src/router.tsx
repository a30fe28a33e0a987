import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { BASE } from './routes';

const listeners = new Set<() => void>();
let flash = '';
window.addEventListener('popstate', () => {
  flash = '';
  listeners.forEach((listener) => listener());
});

/** The message the last navigation brought for the page it led to ("Product created."), else ''. */
export function flashMessage(): string {
  return flash;
}

/**
 * Goes to a path of the console (`/orders`, `/orders/5?x=1`), adding a history entry unless `replace`;
 * `flash` is a message for the page it leads to.
 */
export function navigate(path: string, options: { replace?: boolean; flash?: string } = {}): void {
  flash = options.flash ?? '';
  const url = `${BASE}${path === '/' ? '' : path}`;
  if (options.replace === true) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
}

/** The current location (path and query), re-rendering on every navigation. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return { pathname: window.location.pathname, search: new URLSearchParams(window.location.search) };
}

/** A link inside the console: a real `<a href>` (open in a new tab works), navigating without a reload. */
export function Link({ to, ...props }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={`${BASE}${to === '/' ? '' : to}`} onClick={onClick} />;
}
