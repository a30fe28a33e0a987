import type { Metadata } from 'next';
import { DeleteButton, SignInRequired } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { serverClient, unless } from '@/lib/api-server';
import { date } from '@/lib/format';

export const metadata: Metadata = { title: 'Sessions' };

export default async function SessionsPage() {
  const client = await serverClient();
  const sessions = await unless(
    [401],
    client.page(client.api.GET('/sessions', { params: { query: { page_size: 100 } } })),
  );
  if (sessions === null) {
    return (
      <>
        <h1>Sessions</h1>
        <SignInRequired />
      </>
    );
  }
  return (
    <>
      <h1>Sessions</h1>
      <AccountNav />
      <p>Where your account is signed in. Revoke any you do not recognise.</p>
      <table className="lines">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Address</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.data.map((session) => (
            <tr key={session.id}>
              <th scope="row">
                {session.user_agent || 'Unknown device'}
                {session.current && ' (this browser)'}
              </th>
              <td>{session.ip}</td>
              <td>{date(session.last_used_at)} UTC</td>
              <td>
                <DeleteButton
                  label={session.current ? 'Sign out here' : 'Revoke'}
                  path="/sessions/{id}"
                  id={session.id}
                  signsOut={session.current}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
