import { useEffect, useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client } from '../client';
import { Alert, TextField, useAction } from '../ui';

type User = Schemas['UserResponseDto'];

export const NOT_ADMIN = 'This console is for administrators.';

export function LoginPage({
  refusal,
  onSignedIn,
  onRefused,
}: {
  refusal: string | null;
  onSignedIn: (user: User) => void;
  onRefused: (message: string) => void;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { run, busy, error, fields } = useAction();
  useEffect(() => {
    document.title = 'Sign in · Commerce admin';
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const user = await client.session.login({ username, password });
      if (user.role === 'admin') return onSignedIn(user);
      // The API would refuse every admin call anyway; a customer's session has no business staying open here.
      await client.session.logout().catch(() => undefined);
      setPassword('');
      onRefused(NOT_ADMIN);
    });
  };

  return (
    <main id="main" className="login">
      <h1>Sign in</h1>
      <p className="brand">Commerce admin</p>
      <form onSubmit={submit} noValidate>
        <Alert message={error ?? refusal} />
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          required
          value={username}
          error={fields.username}
          onChange={(event) => setUsername(event.target.value)}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          error={fields.password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
