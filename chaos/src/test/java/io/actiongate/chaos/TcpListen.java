package io.actiongate.chaos;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** {@code TcpListen ADDRESS PORT}: accepts and closes connections until killed (NetworkNamespacesIT's node). */
public final class TcpListen {

    private TcpListen() {
    }

    public static void main(String[] args) throws Exception {
        try (ServerSocket server = new ServerSocket(Integer.parseInt(args[1]), 50, InetAddress.getByName(args[0]))) {
            System.out.println("listening " + args[0] + ":" + args[1]);
            System.out.flush();
            while (true) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write('k');
                }
            }
        }
    }
}
