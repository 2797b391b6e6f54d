import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.Http11NioProtocol;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The floor of the lock server's cycle: the thinnest HTTP front on the same Redis store,
 * for lock-server/load/run.sh to measure beside the server. It answers only what the load
 * driver sends ({@code POST} and {@code DELETE} on {@code /v1/namespaces/<ns>/locks/<key>},
 * with the {@code Lock-Owner-Token} header on {@code DELETE}), and calls the store's
 * scripts directly, the same two as the server: the acquisition that draws the fencing
 * token, and the release. No API key, no quota, no metrics, no JSON library, no lock
 * engine.
 * <ul>
 * <li>{@code tomcat}: one servlet on embedded Tomcat, with the server's keep-alive settings,
 * calling the store's blocking operations on Tomcat's request threads, as the server
 * does;</li>
 * <li>{@code netty}: a Netty HTTP codec on an event loop per core, calling the store's
 * reactive operations and answering when Redis has answered, so that no thread waits
 * (the store delivers its reactive answers off Lettuce's event loop, as it does to
 * every reactive caller).</li>
 * </ul>
 * Usage: {@code java -cp <lock-server classpath> FloorServer.java tomcat|netty <port>
 * <redis host>:<redis port>}; it prints {@code READY} once it listens.
 */
public class FloorServer {

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final String PREFIX = "/v1/namespaces/";

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		int port = Integer.parseInt(args[1]);
		String[] redis = args[2].split(":");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(redis[0], Integer.parseInt(redis[1]));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockStore store = new RedisLockStore(factory);
		if (mode.equals("tomcat")) {
			tomcat(port, store);
		}
		else {
			netty(port, store);
		}
		System.out.println("READY");
		Thread.currentThread().join();
	}

	private static void tomcat(int port, RedisLockStore store) throws Exception {
		Tomcat tomcat = new Tomcat();
		tomcat.setBaseDir(System.getProperty("java.io.tmpdir") + "/floor-tomcat-" + port);
		Connector connector = new Connector(Http11NioProtocol.class.getName());
		connector.setPort(port);
		Http11NioProtocol protocol = (Http11NioProtocol) connector.getProtocolHandler();
		protocol.setAddress(InetAddress.getLoopbackAddress());
		protocol.setKeepAliveTimeout(60_000);
		protocol.setMaxKeepAliveRequests(1000);
		tomcat.setConnector(connector);
		Context context = tomcat.addContext("", null);
		Tomcat.addServlet(context, "locks", new HttpServlet() {

			@Override
			protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
				String key = key(request.getRequestURI());
				if (request.getMethod().equals("POST")) {
					String token = token();
					AcquireReply reply = store.tryAcquireFenced(key, token, TTL);
					if (!reply.isAcquired()) {
						response.setStatus(409);
						return;
					}
					byte[] body = acquired(token, reply.fencingToken());
					response.setStatus(201);
					response.setContentType("application/json");
					response.setContentLength(body.length);
					response.getOutputStream().write(body);
				}
				else {
					response.setStatus(store.release(key, request.getHeader("Lock-Owner-Token")) ? 204 : 409);
				}
			}

		});
		context.addServletMappingDecoded(PREFIX + "*", "locks");
		tomcat.start();
	}

	private static void netty(int port, RedisLockStore store) throws InterruptedException {
		EventLoopGroup group = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
				NioIoHandler.newFactory());
		new ServerBootstrap().group(group)
			.channel(NioServerSocketChannel.class)
			.childOption(ChannelOption.TCP_NODELAY, true)
			.childHandler(new ChannelInitializer<SocketChannel>() {

				@Override
				protected void initChannel(SocketChannel channel) {
					channel.pipeline()
						.addLast(new HttpServerCodec(), new HttpObjectAggregator(4096), new LockHandler(store));
				}

			})
			.bind("127.0.0.1", port)
			.sync();
	}

	static final class LockHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

		private final RedisLockStore store;

		LockHandler(RedisLockStore store) {
			this.store = store;
		}

		@Override
		protected void channelRead0(ChannelHandlerContext context, FullHttpRequest request) {
			boolean keepAlive = HttpUtil.isKeepAlive(request);
			String key = key(request.uri());
			Mono<FullHttpResponse> answer;
			if (request.method().equals(HttpMethod.POST)) {
				String token = token();
				answer = this.store.tryAcquireReactive(key, token, TTL)
					.map((reply) -> reply.isAcquired() ? created(acquired(token, reply.fencingToken()))
							: empty(HttpResponseStatus.CONFLICT));
			}
			else {
				answer = this.store.releaseReactive(key, request.headers().get("Lock-Owner-Token"))
					.map((released) -> empty(released ? HttpResponseStatus.NO_CONTENT : HttpResponseStatus.CONFLICT));
			}
			answer.subscribe((response) -> {
				if (keepAlive) {
					HttpUtil.setKeepAlive(response, true);
					context.writeAndFlush(response);
				}
				else {
					context.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
				}
			}, (ex) -> context.writeAndFlush(empty(HttpResponseStatus.SERVICE_UNAVAILABLE))
				.addListener(ChannelFutureListener.CLOSE));
		}

		private static FullHttpResponse created(byte[] body) {
			FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED,
					Unpooled.wrappedBuffer(body));
			response.headers()
				.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
				.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
			return response;
		}

		private static FullHttpResponse empty(HttpResponseStatus status) {
			FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
			response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
			return response;
		}

	}

	/** The store key: the namespace and the key, as the path names them. */
	static String key(String uri) {
		return uri.substring(PREFIX.length());
	}

	/** An owner token that is unique enough for a load test (not a secret). */
	static String token() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
	}

	static byte[] acquired(String token, long fencingToken) {
		return ("{\"ownerToken\":\"" + token + "\",\"fencingToken\":" + fencingToken + "}")
			.getBytes(StandardCharsets.US_ASCII);
	}

}
