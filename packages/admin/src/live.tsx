import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { CommerceClient } from '@commerce/sdk';
import { client } from './client';

type CommerceSocket = ReturnType<CommerceClient['socket']>;
type SocketStatus = 'connecting' | 'open' | 'closed';
const LiveContext = createContext<{ socket: CommerceSocket | null; status: SocketStatus }>({
  socket: null,
  status: 'closed',
});

/** One WebSocket per signed-in console, subscribed to the admins' `orders` channel. */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [socket, setSocket] = useState<CommerceSocket | null>(null);
  const [status, setStatus] = useState<SocketStatus>('connecting');
  useEffect(() => {
    const opened = client.socket({ channels: ['orders'] });
    const off = opened.onStatus(setStatus);
    setSocket(opened);
    return () => {
      off();
      opened.close();
    };
  }, []);
  return <LiveContext.Provider value={{ socket, status }}>{children}</LiveContext.Provider>;
}

export function useLive() {
  return useContext(LiveContext);
}
