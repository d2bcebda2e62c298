package io.heliotrope.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import static java.util.Objects.requireNonNull;

/**
 * One {@link TestingSite} for a test class: started before its first test, closed after
 * its last, and its log printed when a test fails.
 * <pre>{@code
 * @RegisterExtension
 * static final SiteExtension site = new SiteExtension();
 * }</pre>
 */
final class SiteExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {
    private final String[] serveOptions;
    private TestingSite site;

    /** @param serveOptions more options for {@code helio serve} */
    SiteExtension(String... serveOptions) {
        this.serveOptions = serveOptions.clone();
    }

    TestingSite get() {
        return requireNonNull(site, "site is not started");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        site = TestingSite.start(serveOptions);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (site != null) {
            site.close();
            site = null;
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (site != null) {
            System.err.printf("==== %s failed; log of the site (data in %s) ====%n%s==== end of site log ====%n",
                    context.getDisplayName(), site.dataDir(), site.log());
        }
    }
}
