package handofflab.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Copies compiled classes with every timed {@code wait(ms)} and {@code wait(ms, ns)} made a plain
 * {@code wait()}, for Lincheck's model checker.
 *
 * <p>Why: the model checker may let a timed wait return at any point, so a correct
 * {@code while (full) wait(100);} is a loop it can run for ever, and it reports a hang that is not
 * there (a false rejection). In a correct monitor the timeout never has to wake anyone: every change
 * a waiter waits for is followed by a notify, so the plain wait behaves the same. Where the timeout
 * did the waking (a {@code notify()} that woke the wrong thread), the plain wait shows the lost
 * wake-up it was hiding, which is what the check is for.
 *
 * <p>Usage: {@code UntimedWaits IN_DIR OUT_DIR}; prints how many calls it changed.
 */
public final class UntimedWaits {
    private UntimedWaits() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: UntimedWaits IN_DIR OUT_DIR");
            System.exit(2);
        }
        Path in = Paths.get(args[0]);
        Path out = Paths.get(args[1]);
        int[] changed = {0};
        List<Path> files;
        try (Stream<Path> walk = Files.walk(in)) {
            files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
        }
        for (Path file : files) {
            Path target = out.resolve(in.relativize(file).toString());
            Files.createDirectories(target.getParent());
            byte[] bytes = Files.readAllBytes(file);
            Files.write(target, file.toString().endsWith(".class") ? untimed(bytes, changed) : bytes);
        }
        System.out.println("untimed waits: " + changed[0]);
    }

    static byte[] untimed(byte[] classFile, int[] changed) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, 0);  // the stack only shrinks: its maximum stays valid
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                        boolean timed = opcode == Opcodes.INVOKEVIRTUAL && method.equals("wait")
                                && (desc.equals("(J)V") || desc.equals("(JI)V"));
                        if (!timed) {
                            super.visitMethodInsn(opcode, owner, method, desc, itf);
                            return;
                        }
                        if (desc.equals("(JI)V")) {
                            super.visitInsn(Opcodes.POP);   // the nanoseconds
                        }
                        super.visitInsn(Opcodes.POP2);      // the milliseconds
                        super.visitMethodInsn(opcode, owner, "wait", "()V", false);
                        changed[0]++;
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }
}
