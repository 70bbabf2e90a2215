// Launcher starts DynamoDB Local with its Jetty connector bound to one host.
// DynamoDB Local has no host flag and listens on every interface; this sets
// the host on the connectors of the server it built before starting it.
// Usage: java -cp DynamoDBLocal.jar Launcher.java HOST [DynamoDB Local flags...]
import java.lang.reflect.Field;
import java.util.Arrays;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class Launcher {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: Launcher HOST [flags...]");
            System.exit(2);
        }
        String host = args[0];
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
        Field f = DynamoDBProxyServer.class.getDeclaredField("server");
        f.setAccessible(true);
        Server jetty = (Server) f.get(proxy);
        int bound = 0;
        for (Connector c : jetty.getConnectors()) {
            if (c instanceof ServerConnector sc) {
                sc.setHost(host);
                bound++;
            }
        }
        if (bound == 0) {
            System.err.println("Launcher: no connector to bind to " + host);
            System.exit(1);
        }
        proxy.start();
        System.out.println("DynamoDB Local listening on " + host);
        proxy.join();
    }
}
