import {
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { formatTotal } from './format';
import { CommerceApiError } from '@commerce/sdk';

type FieldErrors = Record<string, string>;

let onSessionEnded: () => void = () => {};
/** What the app does when the API says the session is over (401): show the sign-in page. */
export function setSessionEndedHandler(handler: () => void): void {
  onSessionEnded = handler;
}

/** The text to show for a failed call: the API's own `details`, or why the request did not get an answer. */
export function errorText(error: unknown): string {
  if (error instanceof CommerceApiError) return error.details;
  if (error instanceof Error) return `The request failed: ${error.message}`;
  return 'The request failed.';
}

function report(error: unknown): void {
  if (error instanceof CommerceApiError && error.status === 401) onSessionEnded();
}

/** Field errors of a 400 by field path (`price`, `items.0.quantity`); the first message of each field. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  const fields: FieldErrors = {};
  if (error instanceof CommerceApiError) {
    for (const { field, message } of error.fields)
      if (field !== '' && !(field in fields)) fields[field] = message;
  }
  return fields;
}

/** The error of a field or, failing that, of one of its parts (`countries` or `countries.2`). */
export function errorOf(fields: FieldErrors, field: string): string | undefined {
  return fields[field] ?? Object.entries(fields).find(([name]) => name.startsWith(`${field}.`))?.[1];
}

/** Loads data for a page; `reload` runs it again, `setData` applies a change already known (a live update). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const stableLoad = useCallback(load, deps);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await stableLoad();
      if (mine === generation.current) {
        setData(value);
        setError(null);
      }
    } catch (caught) {
      report(caught);
      if (mine === generation.current) setError(errorText(caught));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [stableLoad]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/** Runs a form's or a button's call: busy while it runs, then the API's error (with field errors) or a status. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<FieldErrors>({});
  const [status, setStatus] = useState('');
  const run = useCallback(async (action: () => Promise<unknown>, done?: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setFields({});
    setStatus('');
    try {
      await action();
      if (done !== undefined) setStatus(done);
      return true;
    } catch (caught) {
      report(caught);
      setError(errorText(caught));
      setFields(fieldErrorsOf(caught));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, error, fields, status, setStatus };
}

export function Alert({ message }: { message: string | null }) {
  if (message === null || message === '') return null;
  return (
    <p role="alert" className="alert">
      {message}
    </p>
  );
}

/** A live region: present from the start so that screen readers announce what appears in it. */
export function Status({ message }: { message: string }) {
  return (
    <p role="status" className={message === '' ? 'status empty' : 'status'}>
      {message}
    </p>
  );
}

export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Commerce admin`;
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1>{title}</h1>
        {actions}
      </div>
      {children}
    </>
  );
}

type Labelled = { label: string; error?: string; hint?: string };

/** A label, the control it names, and its hint and error (tied to it by aria-describedby). */
function Field({
  label,
  error,
  hint,
  inline,
  control,
}: Labelled & {
  inline?: boolean;
  control: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const described = [hint !== undefined ? `${id}-hint` : '', error !== undefined ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const input = control({
    id,
    'aria-invalid': error !== undefined,
    'aria-describedby': described || undefined,
  });
  return (
    <div className={inline === true ? 'field field-inline' : 'field'}>
      {inline === true && input}
      <label htmlFor={id}>{label}</label>
      {inline !== true && input}
      {hint !== undefined && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {error !== undefined && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

export function TextField({
  label,
  error,
  hint,
  ...input
}: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  return <Field label={label} error={error} hint={hint} control={(aria) => <input {...aria} {...input} />} />;
}

/** An amount of money: decimals with at most two places. */
export function PriceField(props: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  return <TextField type="number" inputMode="decimal" min="0.01" step="0.01" {...props} />;
}

/** A count (stock): a whole number from 0. */
export function CountField(props: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  return <TextField type="number" inputMode="numeric" min="0" step="1" {...props} />;
}

/**
 * A list's search box: `onSearch` runs once typing pauses (and at once on Enter, as the form's submit), so
 * every key does not cost a request.
 */
export function SearchField({
  initial,
  onSearch,
  ...props
}: Labelled & { initial: string; onSearch: (text: string) => void } & InputHTMLAttributes<HTMLInputElement>) {
  const [text, setText] = useState(initial);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <TextField
      type="search"
      {...props}
      value={text}
      onChange={(event) => {
        const value = event.target.value;
        setText(value);
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => onSearch(value), 350);
      }}
    />
  );
}

/** A list's filters: each applies as it changes, so the form itself submits nothing. */
export function Filters({ label, children }: { label: string; children: ReactNode }) {
  return (
    <form className="filters" role="search" aria-label={label} onSubmit={(event) => event.preventDefault()}>
      {children}
    </form>
  );
}

/**
 * A button of a table row: its visible label (`Delete`) plus, for screen readers and tests, what it acts on
 * (`Delete Desk lamp`), since a column of identical names says nothing out of context.
 */
export function RowButton({
  label,
  of,
  danger,
  ...button
}: { label: string; of: string; danger?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="button" className={danger === true ? 'danger' : undefined} {...button}>
      {label}
      <span className="visually-hidden"> {of}</span>
    </button>
  );
}

/** `Deactivate` for an active record, `Activate` for an inactive one. */
export function ToggleActiveButton({
  active,
  of,
  busy,
  onToggle,
}: {
  active: boolean;
  of: string;
  busy: boolean;
  onToggle: (active: boolean) => void;
}) {
  return (
    <RowButton
      label={active ? 'Deactivate' : 'Activate'}
      of={of}
      disabled={busy}
      onClick={() => onToggle(!active)}
    />
  );
}

/** A row's state and the button that flips it (after it, the row's other buttons, `children`): two cells. */
export function ActiveCells({
  children,
  ...props
}: {
  active: boolean;
  of: string;
  busy: boolean;
  onToggle: (active: boolean) => void;
  children?: ReactNode;
}) {
  return (
    <>
      <td>
        <ActiveBadge active={props.active} />
      </td>
      <td className={children === undefined ? undefined : 'actions'}>
        <ToggleActiveButton {...props} />
        {children}
      </td>
    </>
  );
}

/** A table in its horizontally scrolling frame, with its caption (when shown) and column headers. */
export function DataTable({
  caption,
  columns,
  children,
  footer,
}: {
  caption?: string;
  columns: (string | [string, 'number'])[];
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table>
        {caption !== undefined && <caption>{caption}</caption>}
        <TableHead columns={columns} />
        <tbody>{children}</tbody>
        {footer !== undefined && <tfoot>{footer}</tfoot>}
      </table>
    </div>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  return (
    <span className={active ? 'badge badge-active' : 'badge badge-inactive'}>
      {active ? 'Active' : 'Inactive'}
    </span>
  );
}

export function TextArea({
  label,
  error,
  hint,
  ...input
}: Labelled & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} error={error} hint={hint} control={(aria) => <textarea {...aria} {...input} />} />
  );
}

export function CheckboxField({
  label,
  error,
  hint,
  ...input
}: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      inline
      control={(aria) => <input type="checkbox" {...aria} {...input} />}
    />
  );
}

/** A select of `options` (value and label), with a first empty choice when `empty` names it. */
export function SelectField({
  label,
  error,
  hint,
  options,
  empty,
  ...select
}: Labelled & {
  options: readonly { value: string | number; label: string }[];
  empty?: string;
} & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      control={(aria) => (
        <select {...aria} {...select}>
          {empty !== undefined && <option value="">{empty}</option>}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** Column headers; a column named `[label, 'number']` is right-aligned, for amounts and counts. */
function TableHead({ columns }: { columns: (string | [string, 'number'])[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : (
            <th key={column[0]} scope="col" className="number">
              {column[0]}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}

type PageMeta = { page: number | null; total: number; total_exact?: boolean; total_page: number };

/** Previous / next page buttons for a list's `meta`, with where the list is. */
export function Pagination({ meta, onPage }: { meta: PageMeta; onPage: (page: number) => void }) {
  const page = meta.page ?? 1;
  return (
    <div className="pagination">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {meta.total_page === 0 ? 0 : page} of {meta.total_page} ({formatTotal(meta)} in all)
      </span>
      <button type="button" disabled={page >= meta.total_page} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </div>
  );
}
