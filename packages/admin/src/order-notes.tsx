import { useState, type FormEvent } from 'react';
import { client } from './client';
import { formatDateTime } from './format';
import { Alert, Status, TextArea, useAction, useLoad } from './ui';

/** The order's staff notes, oldest first, and the form that adds one; `onAdded` lets the page refresh the rest. */
export function OrderNotes({ orderId, onAdded }: { orderId: number; onAdded: () => void }) {
  const path = { params: { path: { id: orderId } } };
  const notes = useLoad(() => client.data(client.api.GET('/admin/orders/{id}/notes', path)), [orderId]);
  const add = useAction();
  const [text, setText] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add
      .run(
        () => client.data(client.api.POST('/admin/orders/{id}/notes', { ...path, body: { text } })),
        'Note added.',
      )
      .then((ok) => {
        if (!ok) return;
        setText('');
        void notes.reload();
        onAdded();
      });
  };

  return (
    <section aria-labelledby="notes-heading">
      <h2 id="notes-heading">Notes</h2>
      <Alert message={notes.error} />
      {notes.data !== null &&
        (notes.data.length === 0 ? (
          <p>No notes yet.</p>
        ) : (
          <ol className="notes">
            {notes.data.map((note) => (
              <li key={note.id}>
                <p className="note-text">{note.text}</p>
                <p className="sub">
                  {note.author.username ?? `#${note.author.id}`}, {formatDateTime(note.created_at)}
                </p>
              </li>
            ))}
          </ol>
        ))}
      <form onSubmit={submit} noValidate>
        <TextArea
          label="New note"
          hint="Only staff see notes. Up to 2000 characters."
          maxLength={2000}
          rows={3}
          value={text}
          error={add.fields.text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" disabled={add.busy}>
          Add note
        </button>
      </form>
      <Alert message={add.error} />
      <Status message={add.status} />
    </section>
  );
}
