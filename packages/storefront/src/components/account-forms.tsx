'use client';

import { CommerceApiError } from '@commerce/sdk';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { client } from '@/lib/api-browser';
import { problems } from '@/lib/errors';
import { AddressFields, addressFromForm } from './address-fields';
import { storedCartId, useCart } from './cart';

/**
 * Set while this browser has signed in (not a secret: the session is in the service's HttpOnly cookies). It tells
 * a page that found no session whether trying a refresh is worth a request.
 */
const SIGNED_IN_KEY = 'storefront.signed-in';

/** A form's submit with its busy state, its errors and its success message. */
function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const run = (work: () => Promise<string | null>) => {
    setBusy(true);
    setErrors([]);
    setDone(null);
    work()
      .then(setDone)
      .catch((error: unknown) => setErrors(problems(error)))
      .finally(() => setBusy(false));
  };
  const feedback: ReactNode = (
    <>
      {errors.length > 0 && (
        <div role="alert" className="error">
          {errors.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      <p role="status">{done}</p>
    </>
  );
  return { busy, run, feedback };
}

function Field({
  name,
  label,
  type = 'text',
  autoComplete,
  required = true,
  minLength,
}: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
}) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        type={type}
        autoComplete={autoComplete}
        required={required}
        minLength={minLength}
      />
    </div>
  );
}

function NewPasswordField({ name }: { name: string }) {
  return (
    <Field
      name={name}
      label="New password (at least 8 characters)"
      type="password"
      autoComplete="new-password"
      minLength={8}
    />
  );
}

/** After a sign-in or a registration: the guest cart this browser filled becomes the customer's. */
function useClaimCart() {
  const { adopt } = useCart();
  return async () => {
    const id = storedCartId();
    if (id === null) return;
    try {
      adopt(await client.data(client.api.POST('/carts/{id}/claim', { params: { path: { id } } })));
    } catch (error) {
      // A cart already checked out or removed has nothing left to claim.
      if (!(error instanceof CommerceApiError && error.status === 404)) throw error;
    }
  };
}

export function SignInForm() {
  const router = useRouter();
  const claim = useClaimCart();
  const { busy, run, feedback } = useSubmit();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    run(async () => {
      await client.session.login({
        username: String(form.get('username')),
        password: String(form.get('password')),
      });
      localStorage.setItem(SIGNED_IN_KEY, '1');
      await claim();
      router.refresh();
      return 'Signed in.';
    });
  }
  return (
    <form onSubmit={submit} aria-labelledby="sign-in-heading" className="narrow">
      <h2 id="sign-in-heading">Sign in</h2>
      <Field name="username" label="Username" autoComplete="username" />
      <Field name="password" label="Password" type="password" autoComplete="current-password" />
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      {feedback}
      <p>
        New here? <Link href="/account/register">Create an account</Link>.{' '}
        <Link href="/reset-password">Forgot your password?</Link>
      </p>
    </form>
  );
}

/**
 * What an account page shows without a session: the sign-in form. A browser that signed in before may only hold
 * an expired access cookie: it refreshes through the refresh cookie once, and the page renders again.
 */
export function SignInRequired() {
  const router = useRouter();
  const [checking, setChecking] = useState(true);
  useEffect(() => {
    if (localStorage.getItem(SIGNED_IN_KEY) === null) {
      setChecking(false);
      return;
    }
    client.session
      .refresh()
      .then(() => router.refresh())
      .catch(() => {
        localStorage.removeItem(SIGNED_IN_KEY);
        setChecking(false);
      });
  }, [router]);
  return checking ? <p>Checking your session…</p> : <SignInForm />;
}

export function RegisterForm() {
  const router = useRouter();
  const claim = useClaimCart();
  const { busy, run, feedback } = useSubmit();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    run(async () => {
      const created = await client.data(
        client.api.POST('/register', {
          body: {
            username: text('username'),
            email: text('email'),
            password: String(form.get('password')),
            first_name: text('first_name'),
            last_name: text('last_name'),
          },
        }),
      );
      // In cookie mode the registration also signs in (its answer then carries the session's CSRF token), unless
      // the shop wants the e-mail address verified first.
      if (!('csrf_token' in created)) {
        return 'Account created. Open the link we have sent to your e-mail address, then sign in.';
      }
      localStorage.setItem(SIGNED_IN_KEY, '1');
      await claim();
      router.push('/account');
      router.refresh();
      return 'Account created.';
    });
  }
  return (
    <form onSubmit={submit} className="narrow">
      <Field name="username" label="Username" autoComplete="username" />
      <Field name="email" label="E-mail" type="email" autoComplete="email" />
      <Field
        name="password"
        label="Password (at least 8 characters)"
        type="password"
        autoComplete="new-password"
        minLength={8}
      />
      <Field name="first_name" label="First name (optional)" autoComplete="given-name" required={false} />
      <Field name="last_name" label="Last name (optional)" autoComplete="family-name" required={false} />
      <button type="submit" disabled={busy}>
        Create account
      </button>
      {feedback}
    </form>
  );
}

/** This browser is signed out: its signed-in mark and the customer's cart go (the cart stays with the account). */
function useSignedOut() {
  const router = useRouter();
  const { forget } = useCart();
  return () => {
    localStorage.removeItem(SIGNED_IN_KEY);
    forget();
    router.push('/');
    router.refresh();
  };
}

export function SignOutButton() {
  const signedOut = useSignedOut();
  const [busy, setBusy] = useState(false);
  async function signOut() {
    setBusy(true);
    try {
      await client.session.logout();
    } finally {
      signedOut();
    }
  }
  return (
    <button type="button" onClick={() => void signOut()} disabled={busy}>
      Sign out
    </button>
  );
}

export function PasswordForm() {
  const { busy, run, feedback } = useSubmit();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    run(async () => {
      await client.data(
        client.api.PUT('/me/password', {
          body: {
            current_password: String(form.get('current_password')),
            new_password: String(form.get('new_password')),
          },
        }),
      );
      target.reset();
      return 'Password changed. Your other sessions have been signed out.';
    });
  }
  return (
    <form onSubmit={submit} className="narrow">
      <Field
        name="current_password"
        label="Current password"
        type="password"
        autoComplete="current-password"
      />
      <NewPasswordField name="new_password" />
      <button type="submit" disabled={busy}>
        Change password
      </button>
      {feedback}
    </form>
  );
}

export function ResetRequestForm() {
  const { busy, run, feedback } = useSubmit();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email')).trim();
    run(async () => {
      await client.data(client.api.POST('/auth/password-reset', { body: { email } }));
      return `If an account uses ${email}, a link to choose a new password is on its way.`;
    });
  }
  return (
    <form onSubmit={submit} className="narrow">
      <Field name="email" label="E-mail" type="email" autoComplete="email" />
      <button type="submit" disabled={busy}>
        Send reset link
      </button>
      {feedback}
    </form>
  );
}

export function ResetConfirmForm({ token }: { token: string }) {
  const { busy, run, feedback } = useSubmit();
  const [done, setDone] = useState(false);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password'));
    run(async () => {
      await client.data(client.api.POST('/auth/password-reset/confirm', { body: { token, password } }));
      setDone(true);
      return 'Your password has been changed. Sign in with it now.';
    });
  }
  return (
    <form onSubmit={submit} className="narrow">
      <NewPasswordField name="password" />
      <button type="submit" disabled={busy || done}>
        Set new password
      </button>
      {feedback}
      {done && <Link href="/account">Sign in</Link>}
    </form>
  );
}

export function AddAddressForm({ countries }: { countries: string[] }) {
  const router = useRouter();
  const { busy, run, feedback } = useSubmit();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    run(async () => {
      await client.data(
        client.api.POST('/me/addresses', {
          body: { ...addressFromForm(form), is_default: form.get('is_default') === 'on' },
        }),
      );
      target.reset();
      router.refresh();
      return 'Address added.';
    });
  }
  return (
    <form onSubmit={submit} aria-labelledby="add-address-heading" className="narrow">
      <h2 id="add-address-heading">Add an address</h2>
      <AddressFields countries={countries} />
      <label className="check">
        <input type="checkbox" name="is_default" /> Default address
      </label>
      <button type="submit" disabled={busy}>
        Add address
      </button>
      {feedback}
    </form>
  );
}

/** A button that deletes or revokes something and renders the page again. */
export function DeleteButton({
  label,
  path,
  id,
  signsOut = false,
}: {
  label: string;
  path: '/me/addresses/{id}' | '/sessions/{id}';
  id: string;
  /** Revoking this browser's own session signs it out. */
  signsOut?: boolean;
}) {
  const router = useRouter();
  const signedOut = useSignedOut();
  const { busy, run, feedback } = useSubmit();
  function remove() {
    run(async () => {
      if (path === '/me/addresses/{id}') {
        await client.data(client.api.DELETE('/me/addresses/{id}', { params: { path: { id: Number(id) } } }));
      } else {
        await client.data(client.api.DELETE('/sessions/{id}', { params: { path: { id } } }));
      }
      if (signsOut) signedOut();
      else router.refresh();
      return null;
    });
  }
  return (
    <>
      <button type="button" onClick={remove} disabled={busy}>
        {label}
      </button>
      {feedback}
    </>
  );
}

/** The registration e-mail's link: confirms the address (a button, so that a mail scanner opening links does not). */
export function VerifyEmailForm({ token }: { token: string }) {
  const { busy, run, feedback } = useSubmit();
  const [done, setDone] = useState(false);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    run(async () => {
      await client.data(client.api.POST('/auth/verify-email', { body: { token } }));
      setDone(true);
      return 'Your e-mail address is confirmed.';
    });
  }
  return (
    <form onSubmit={submit} className="narrow">
      <button type="submit" disabled={busy || done}>
        Confirm my e-mail address
      </button>
      {feedback}
      {done && <Link href="/account">Go to your account</Link>}
    </form>
  );
}
