package io.heliotrope.benchmarks.cassandra;

import com.datastax.oss.driver.api.core.addresstranslation.AddressTranslator;
import com.datastax.oss.driver.api.core.config.DriverOption;
import com.datastax.oss.driver.api.core.context.DriverContext;

import java.net.InetSocketAddress;

/**
 * A client's own site reached directly: every node announces the address of its WAN link
 * (its broadcast RPC address), and the nodes whose link address starts with {@code FROM}
 * are reached at the same address with {@code TO} in its place, their listen address in this
 * client's site. Every other node is reached through its link. The option is
 * {@code advanced.address-translator.site-prefix = "127.0.11.=127.0.1."}.
 */
public final class SitePrefixTranslator implements AddressTranslator {
    static final DriverOption SITE_PREFIX = () -> "advanced.address-translator.site-prefix";

    private final String from;
    private final String to;

    public SitePrefixTranslator(DriverContext context) {
        String[] rule = context.getConfig().getDefaultProfile().getString(SITE_PREFIX).split("=", 2);
        this.from = rule[0];
        this.to = rule[1];
    }

    @Override
    public InetSocketAddress translate(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        return host.startsWith(from) ? new InetSocketAddress(to + host.substring(from.length()), address.getPort()) : address;
    }

    @Override
    public void close() {}
}
