package io.heliotrope.scheduler.plugin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.heliotrope.scheduler.spi.Plugin;

import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static java.util.stream.Collectors.joining;

/**
 * Builds a plugin jar at test time: compiles Java sources in memory, as a plugin author's
 * build would, against the SPI, Jackson's annotations and the given jars only, and packs the
 * classes with a {@code META-INF/services} file naming the given plugins (none for an empty list).
 */
final class TestingPluginJar {
    private TestingPluginJar() {}

    /**
     * @param sources   each class's source, by its binary name
     * @param plugins   the {@link Plugin} classes the service file names
     * @param classpath more jars the sources compile against (a plugin's dependencies)
     */
    static Path write(Path jar, Map<String, String> sources, List<String> plugins, Path... classpath) throws IOException {
        Map<String, byte[]> classes = compile(sources, classpath);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Map.Entry<String, byte[]> type : classes.entrySet()) {
                add(out, type.getKey().replace('.', '/') + ".class", type.getValue());
            }
            if (!plugins.isEmpty()) {
                add(out, "META-INF/services/" + Plugin.class.getName(),
                        (String.join("\n", plugins) + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }

    private static Map<String, byte[]> compile(Map<String, String> sources, Path... classpath) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        List<String> path = new ArrayList<>(List.of(codeSource(Plugin.class), codeSource(JsonProperty.class)));
        Stream.of(classpath).map(Path::toString).forEach(path::add);
        List<String> options = List.of("--release", "17", "-proc:none", "-Xlint:all", "-Werror",
                "-classpath", String.join(File.pathSeparator, path));
        List<JavaFileObject> units = sources.entrySet().stream()
                .map(source -> (JavaFileObject) new Source(source.getKey(), source.getValue()))
                .toList();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (ClassFiles files = new ClassFiles(compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8))) {
            if (!compiler.getTask(null, files, diagnostics, options, null, units).call()) {
                throw new IllegalStateException("the test plugin does not compile:\n"
                        + diagnostics.getDiagnostics().stream().map(Object::toString).collect(joining("\n")));
            }
            Map<String, byte[]> classes = new TreeMap<>();
            files.classes.forEach((name, bytes) -> classes.put(name, bytes.toByteArray()));
            return classes;
        }
    }

    private static void add(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        out.write(bytes);
        out.closeEntry();
    }

    private static String codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String className, String code) {
            super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /** Keeps the class files the compiler writes, by binary name. */
    private static final class ClassFiles extends ForwardingJavaFileManager<StandardJavaFileManager> {
        private final Map<String, ByteArrayOutputStream> classes = new TreeMap<>();

        ClassFiles(StandardJavaFileManager files) {
            super(files);
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("memory:///" + className.replace('.', '/') + kind.extension), kind) {
                @Override
                public OutputStream openOutputStream() {
                    return classes.computeIfAbsent(className, name -> new ByteArrayOutputStream());
                }
            };
        }
    }
}
